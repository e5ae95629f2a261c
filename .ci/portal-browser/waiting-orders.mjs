// The portal's browser check (.ci/portal-browser.mjs), the seller's workplace in both
// languages: a paid order waiting (its product's automatic delivery off) found from
// Needs attention, opened, its chat read and answered, taken and delivered, its codes
// shown (Activity records the showing, without them); a second waiting order cancelled
// after a confirmation naming the refunded amount and what happens to the balance.
// Begins and ends in English, on Activity. axe-core on every page (inspect).
import { check } from './session.mjs'

const WORDS = {
  en: {
    attention: 'Needs attention',
    waiting: /^Paid orders waiting to be delivered: \d+$/,
    orders: 'Orders',
    order: 'Order',
    question: 'When will my code come?',
    reply: 'Reply',
    send: 'Send',
    answer: 'Within ten minutes.',
    sent: 'Your message is sent.',
    take: 'Take into work',
    taken: 'The order is taken into work.',
    deliverValues: 'Codes to deliver',
    deliver: 'Deliver',
    delivered: 'The order is delivered.',
    showCodes: 'Show codes',
    shown: 'The codes are shown for this page only',
    activity: 'Activity',
    revealed: 'Showed the delivered codes of order',
    cancel: 'Cancel the order',
    cancelTitle: /^Cancel order [0-9a-f]{8}\?$/,
    amount: /The buyer gets .+₽ back\. Your balance/,
    confirm: 'Confirm',
    cancelled: /The order is cancelled and .+₽ refunded to the buyer\./
  },
  ru: {
    attention: 'Требует внимания',
    waiting: /^Оплаченные заказы ждут выдачи: \d+$/,
    orders: 'Заказы',
    order: 'Заказ',
    question: 'Когда придёт мой код?',
    reply: 'Ответ',
    send: 'Отправить',
    answer: 'В течение десяти минут.',
    sent: 'Сообщение отправлено.',
    take: 'Взять в работу',
    taken: 'Заказ взят в работу.',
    deliverValues: 'Коды для выдачи',
    deliver: 'Выдать',
    delivered: 'Заказ выдан.',
    showCodes: 'Показать коды',
    shown: 'Коды показаны только на этой странице',
    activity: 'Журнал',
    revealed: 'Показаны выданные коды заказа',
    cancel: 'Отменить заказ',
    cancelTitle: /^Отменить заказ [0-9a-f]{8}\?$/,
    amount: /Покупателю вернётся .+₽\. Ваш баланс/,
    confirm: 'Подтвердить',
    cancelled: /Заказ отменён, покупателю возвращено .+₽\./
  }
}

/** A product whose automatic delivery is off (the last one's, switched off if none is), so orders wait. */
async function manualProduct (s, products) {
  for (const product of products) {
    const stock = await s.api('GET', `/v1/products/${product.id}/stock`, s.seller)
    if (stock.stock?.autoDelivery === 'off' || stock.autoDelivery === 'off') return product
  }
  const product = products.at(-1)
  const res = await fetch(`${s.base}/v1/products/${product.id}/stock`, {
    method: 'PATCH', headers: s.seller, body: JSON.stringify({ autoDelivery: 'off' })
  })
  if (res.status !== 200) throw new Error(`stock off: ${res.status} ${await res.text()}`)
  return product
}

/** A paid order of `product`, waiting. */
async function waitingOrder (s, product) {
  const res = await fetch(`${s.base}/internal/v1/orders`, {
    method: 'POST', headers: s.operator, body: JSON.stringify({ productId: product.id, quantity: 1, fieldValues: [] })
  })
  if (res.status !== 201) throw new Error(`order: ${res.status} ${await res.text()}`)
  return (await res.json()).data.order
}

/** `s`: the open session, in English, on Activity (session.mjs); `products`: the demo shop's. */
export async function waitingOrders (s, products) {
  const { page, base, inspect, nav, heading, operator, seller } = s
  const product = await manualProduct(s, products)
  for (const lang of ['en', 'ru']) {
    const w = WORDS[lang]
    if (lang === 'ru') await page.getByRole('button', { name: 'Русский' }).click()
    const [first, second] = [await waitingOrder(s, product), await waitingOrder(s, product)]
    const asked = await fetch(`${base}/internal/v1/orders/${first.id}/messages`, {
      method: 'POST', headers: operator, body: JSON.stringify({ text: w.question })
    })
    if (asked.status !== 201) throw new Error(`buyer message: ${asked.status} ${await asked.text()}`)

    await nav(w.attention).click()
    await heading(w.attention)
    await page.getByRole('link', { name: w.waiting }).click()
    await heading(w.orders)
    const short = first.id.slice(0, 8)
    await page.getByRole('link', { name: short }).click()
    await heading(`${w.order} ${short}`)
    check(await page.getByText(w.question).isVisible(), `${lang}: the waiting order's chat shows the buyer's question`)
    await inspect(`${lang}-waiting-order`)

    await page.getByRole('textbox', { name: w.reply }).fill(w.answer)
    await page.getByRole('button', { name: w.send }).click()
    await page.getByText(w.sent).waitFor()
    const chat = await (await fetch(`${base}/v1/orders/${first.id}/messages`, { headers: seller })).json()
    check(chat.data.messages.some((m) => m.senderRole === 'seller' && m.text === w.answer),
      `${lang}: the reply is in GET /v1/orders/{id}/messages`)
    await page.getByRole('button', { name: w.take }).click()
    await page.getByText(w.taken).waitFor()
    const code = `WAITING-CODE-${lang.toUpperCase()}-0001`
    await page.getByRole('textbox', { name: w.deliverValues }).fill(code)
    await page.getByRole('button', { name: w.deliver }).click()
    await page.getByText(w.delivered).waitFor()
    await page.getByRole('button', { name: w.showCodes }).click()
    await page.getByText(w.shown).waitFor()
    check(await page.getByText(code).isVisible(), `${lang}: Show codes shows the delivered code whole`)
    await nav(w.activity).click()
    await heading(w.activity)
    const activity = await page.content()
    check(activity.includes(`${w.revealed} ${short}`) && !activity.includes(code),
      `${lang}: Activity records the showing of the codes, without them`)

    await page.goto(`${base}/portal/orders/${second.id}`)
    await page.getByRole('link', { name: w.cancel }).click()
    await page.getByRole('heading', { level: 1, name: w.cancelTitle }).waitFor()
    const confirmation = await page.locator('main').innerText()
    check(w.amount.test(confirmation), `${lang}: the cancel confirmation names the amount and the balance`,
      confirmation)
    await inspect(`${lang}-order-cancel`)
    await page.getByRole('button', { name: w.confirm }).click()
    await page.getByText(w.cancelled).waitFor()
    const order = await (await fetch(`${base}/v1/orders/${second.id}`, { headers: seller })).json()
    check(order.data.order.status === 'cancelled', `${lang}: the order is cancelled, as GET /v1/orders/{id} says`)
  }
  await page.getByRole('button', { name: 'English' }).click()
  await nav('Activity').click()
  await heading('Activity')
}
