// The portal's browser check (.ci/portal-browser.mjs), last part: the pages again in
// Russian, a link of another shop (the question before switching), and the pages
// without a session: a used link, too many link openings from one address (429),
// signing out, a session that ended.
import { check } from './session.mjs'

/** `s`: the open session (session.mjs); `claimed`: the claims claimsAndActivity opened. */
export async function russianAndSessionless (s, claimed) {
  const { page, base, link, inspect, nav, heading } = s

  // The same pages in Russian.
  await page.getByRole('button', { name: 'Русский' }).click()
  await heading('Журнал')
  await inspect('ru-activity')
  for (const [name, title] of [
    ['ru-webhooks', 'Вебхуки'],
    ['ru-delivery-endpoint', 'Адрес выдачи'],
    ['ru-stock', 'Склад'],
    ['ru-claims', 'Претензии']
  ]) {
    await nav(title).click()
    await heading(title)
    await inspect(name)
  }
  await page.getByRole('link', { name: `Отклонить претензию к заказу ${claimed[1].orderId.slice(0, 8)}` }).click()
  await heading('Отклонить претензию?')
  await page.getByRole('button', { name: 'Подтвердить' }).click()
  await page.locator('.error-summary').waitFor()
  await inspect('ru-claim-reject-refused')
  await nav('Продажи').click()
  await page.waitForURL(/[?&]tz=/)
  await heading('Продажи')
  await inspect('ru-sales')
  await nav('Склад').click()
  await heading('Склад')
  await page.getByRole('link', { name: 'Steam wallet code, $10' }).click()
  await heading('Склад: Steam wallet code, $10')
  await inspect('ru-stock-product')
  await page.getByRole('link', { name: 'Загрузить коды' }).click()
  await heading('Загрузить коды: Steam wallet code, $10')
  await page.getByRole('button', { name: 'Загрузить' }).click()
  await page.locator('.error-summary').waitFor()
  await inspect('ru-stock-upload-error')

  // A link of another shop asks first, naming both shops; staying keeps this session.
  const operatorCall = (path, body) =>
    fetch(`${base}/internal/v1${path}`, { method: 'POST', headers: s.operator, body: JSON.stringify(body) })
      .then((res) => res.json())
  const other = (await operatorCall('/shops', { name: 'Другой магазин' })).data.shop
  const otherLink = (await operatorCall(`/shops/${other.id}/portal-links`, {})).data.url
  const shopName = (await page.locator('.header__shop').textContent()).replace(/^Магазин:\s*/, '').trim()
  await page.goto(otherLink)
  await heading('Перейти в другой магазин?')
  const question = await page.locator('main').textContent()
  check(question.includes(`«${shopName}»`) && question.includes('«Другой магазин»'),
    'a link of another shop asks first, naming both shops')
  await inspect('switch-shop')
  await page.getByRole('link', { name: `Остаться в «${shopName}»` }).click()
  await heading('Требует внимания')

  // Pages without a session: a used link, and a session that ended.
  await page.goto(link)
  await heading('Ссылка больше не действует')
  await inspect('link-invalid')
  // More openings from this address than PUBLIC_RATE_LIMIT_MAX (3) in a window: a page in both languages.
  let limited = null
  for (let attempt = 0; attempt < 7 && limited === null; attempt++) {
    const res = await page.goto(`${base}/portal/enter?token=portal_link_${'x'.repeat(43)}`)
    if (res.status() === 429) limited = res
  }
  check(
    limited !== null && Number(limited.headers()['retry-after']) > 0,
    'too many link openings from one address: 429 with Retry-After'
  )
  await heading('Слишком много открытых ссылок')
  await inspect('too-many-openings')
  // Signing out ends the session: its cookie then opens nothing.
  await page.goto(`${base}/portal/api-keys`)
  await heading('Ключи API')
  check(await page.locator('.header__shop').textContent().then((name) => name.trim() !== ''),
    'the header names the shop')
  await page.getByRole('button', { name: 'Выйти' }).click()
  await heading('Вы вышли')
  await inspect('signed-out')
  await page.goto(`${base}/portal/api-keys`)
  await heading('Сеанс завершён')
  await inspect('session-ended')
}
