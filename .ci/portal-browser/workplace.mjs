// The portal's browser check (.ci/portal-browser.mjs), the seller's workplace: a
// buyer's question found from Needs attention, its order opened from the Orders list,
// the chat read and answered, the codes shown; the list and the order at 390 px
// without sideways scrolling. axe-core on every page (inspect).
import { check } from './session.mjs'

/** `s`: the open session, in English (session.mjs); `claimed`: the claims claimsAndActivity opened. */
export async function workplace (s, claimed) {
  const { page, base, inspect, nav, heading, operator, seller } = s
  const orderId = claimed[1].orderId
  const asked = await fetch(`${base}/internal/v1/orders/${orderId}/messages`, {
    method: 'POST',
    headers: operator,
    body: JSON.stringify({ text: 'Is a replacement coming?' })
  })
  if (asked.status !== 201) throw new Error(`buyer message: ${asked.status} ${await asked.text()}`)

  await nav('Needs attention').click()
  await heading('Needs attention')
  await inspect('en-attention')
  await page.getByRole('link', { name: /^Orders whose buyer wrote last: \d+$/ }).click()
  await heading('Orders')
  check(page.url().includes('reply=1'), 'Needs attention: the count opens its filtered list', page.url())
  await page.getByRole('link', { name: orderId.slice(0, 8) }).click()
  await heading(`Order ${orderId.slice(0, 8)}`)
  check(await page.getByText('Is a replacement coming?').isVisible(), 'Order: the buyer\'s message in the chat')
  await inspect('en-order')

  await page.getByRole('textbox', { name: 'Reply' }).fill('Yes, within the hour.')
  await page.getByRole('button', { name: 'Send' }).click()
  await page.getByText('Your message is sent.').waitFor()
  const chat = await (await fetch(`${base}/v1/orders/${orderId}/messages`, { headers: seller })).json()
  check(chat.data.messages.some((m) => m.senderRole === 'seller' && m.text === 'Yes, within the hour.'),
    'Order: the reply is in GET /v1/orders/{id}/messages')
  await page.getByRole('button', { name: 'Show codes' }).click()
  await page.getByText('The codes are shown for this page only').waitFor()
  check((await page.locator('.codes code').first().textContent())?.endsWith('…') === false,
    'Order: Show codes shows the whole code')

  await page.setViewportSize({ width: 390, height: 800 })
  for (const [name, url] of [['en-390-orders', '/portal/orders'], ['en-390-order', `/portal/orders/${orderId}`]]) {
    await page.goto(`${base}${url}`)
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    check(width <= 390, `${name}: no sideways scrolling at 390 px`, `scrollWidth ${width}`)
    await inspect(name)
  }
  await page.setViewportSize({ width: 1100, height: 800 })
  // The next part begins on Activity, which now names the reply and the showing (not the codes).
  await nav('Activity').click()
  await heading('Activity')
  const activity = await page.content()
  check(activity.includes(`Showed the delivered codes of order ${orderId.slice(0, 8)}`) &&
    !activity.includes('BROWSER-CODE'), 'Activity: the showing of the codes recorded, without them')
}
