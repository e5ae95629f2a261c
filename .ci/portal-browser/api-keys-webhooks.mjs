// The portal's browser check (.ci/portal-browser.mjs), first part: entering by the
// printed link (Russian), the keyboard's first stop, the language switch, an API key
// created, copied, used, gone after a reload and revoked after a confirmation; a
// webhook endpoint refused, added, sent a test the receiver gets, its log.
import { setTimeout as sleep } from 'node:timers/promises'
import { check } from './session.mjs'

const NAV = {
  en: ['Needs attention', 'Orders', 'API keys', 'Webhooks', 'Delivery endpoint', 'Stock', 'Claims', 'Sales',
    'Activity'],
  ru: ['Требует внимания', 'Заказы', 'Ключи API', 'Вебхуки', 'Адрес выдачи', 'Склад', 'Претензии', 'Продажи', 'Журнал']
}

/** `s`: the open session (session.mjs). */
export async function apiKeysAndWebhooks (s) {
  const { page, base, link, hooks, inspect, nav, heading } = s

  // Entering: the link's locale (Russian, the default) decides.
  await page.goto(link)
  await heading('Требует внимания')
  check(page.url() === `${base}/portal/attention`, 'the link lands on the Needs attention page', page.url())
  check((await page.locator('html').getAttribute('lang')) === 'ru', 'in Russian')
  for (const name of NAV.ru) check((await nav(name).count()) === 1, `Russian navigation: ${name}`)
  await inspect('ru-attention')
  await page.goto(`${base}/portal/api-keys`)
  await heading('Ключи API')
  await inspect('ru-api-keys')

  // The keyboard alone: Tab reaches the skip link first, then the form.
  await page.keyboard.press('Tab')
  check(
    await page.evaluate(() => document.activeElement?.classList.contains('skip-link')),
    'the first Tab reaches "skip to main content"'
  )

  // The language switch, on every page: English for the rest of the session.
  await page.getByRole('button', { name: 'English' }).focus()
  await page.keyboard.press('Enter')
  await heading('API keys')
  check((await page.locator('html').getAttribute('lang')) === 'en', 'switched to English')
  for (const name of NAV.en) check((await nav(name).count()) === 1, `English navigation: ${name}`)

  // A key: created, copied, used, gone after a reload, revoked after a confirmation.
  await page.getByRole('textbox', { name: 'Key name' }).focus()
  await page.keyboard.type('Browser bot')
  await page.keyboard.press('Enter')
  const secretBox = page.getByRole('textbox', { name: 'New secret' })
  await secretBox.waitFor()
  const secret = await secretBox.inputValue()
  check(/^service_sk_[A-Za-z0-9]{40}$/.test(secret), 'the new secret is shown, in the element labelled "New secret"')
  await inspect('en-api-keys-created')
  await page.getByRole('button', { name: 'Copy', exact: true }).focus()
  await page.keyboard.press('Enter')
  await page.getByText('Copied to the clipboard.').waitFor()
  check((await page.evaluate(() => navigator.clipboard.readText())) === secret, 'Copy puts the secret on the clipboard')
  const v1 = (key) =>
    fetch(`${base}/v1/products`, { headers: { authorization: `Bearer ${key}` } }).then((res) => res.status)
  check((await v1(secret)) === 200, 'the copied key works on /v1')
  await page.reload()
  await heading('API keys')
  check(
    (await page.getByRole('textbox', { name: 'New secret' }).count()) === 0 && !(await page.content()).includes(secret),
    'after a reload the secret is gone'
  )
  await inspect('en-api-keys')
  const row = page.getByRole('row').filter({ hasText: 'Browser bot' })
  await row.getByRole('button', { name: 'Revoke' }).focus()
  await page.keyboard.press('Enter')
  await heading('Revoke the key “Browser bot”?')
  await inspect('en-api-key-revoke')
  check((await v1(secret)) === 200, 'the confirmation page alone revokes nothing')
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByText('The key “Browser bot” is revoked').waitFor()
  check((await v1(secret)) === 401, 'revoked: /v1 refuses the key')

  // Webhooks: an endpoint added, a test sent and received, the log shows it.
  await nav('Webhooks').click()
  await heading('Webhooks')
  await page.getByRole('link', { name: 'Add an endpoint' }).click()
  await heading('Add a webhook endpoint')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await page.locator('.error-summary').waitFor()
  // portal.js focuses it after htmx settled the swap: wait for that rather than race it.
  check(
    await page
      .waitForFunction(() => document.activeElement?.classList.contains('error-summary'), null, { timeout: 5_000 })
      .then(() => true, () => false),
    'a refused form: the error summary, focused'
  )
  await inspect('en-webhook-form-error')
  await page.getByRole('textbox', { name: 'URL' }).fill(hooks.url)
  await page.getByRole('checkbox', { name: 'order.paid' }).check()
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await heading('Endpoint added')
  check(
    /^whsec_/.test(await page.getByRole('textbox', { name: 'Signing secret' }).inputValue()),
    'the signing secret is shown once'
  )
  await page.getByRole('link', { name: /^Webhook endpoint:/ }).click()
  await heading('Webhook endpoint')
  await page.getByRole('button', { name: 'Send a test event' }).click()
  await page.getByText('A test event is on its way').waitFor()
  for (let i = 0; i < 100 && hooks.received.length === 0; i++) await sleep(100)
  check(
    hooks.received.some((body) => body.includes('"webhook.test"')),
    'the receiver got the test event'
  )
  for (let i = 0; i < 20 && (await page.getByRole('cell', { name: 'Delivered' }).count()) === 0; i++) {
    await sleep(250)
    await page.reload()
  }
  check(
    (await page.getByRole('cell', { name: 'Delivered' }).count()) === 1,
    'the delivery log shows it delivered, with its code',
    await page
      .locator('table')
      .innerText()
      .catch(() => '')
  )
  await inspect('en-webhook')
  await nav('Webhooks').click()
  await heading('Webhooks')
  await inspect('en-webhooks')
}
