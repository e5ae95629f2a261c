// The portal's browser check (.ci/portal-browser.mjs), third part: two delivered
// orders claimed by their buyers, one replaced from the uploaded stock in the page,
// a reject without a note refused; the activity log names what was done.
import { check } from './session.mjs'

/** `s`: the open session (session.mjs); `products`: the demo shop's. Resolves to the claims opened. */
export async function claimsAndActivity (s, products) {
  const { page, base, inspect, nav, heading, api, operator, seller } = s

  // Claims: two delivered orders claimed by their buyers; one replaced from the uploaded stock in the page.
  const claimed = []
  for (const code of ['BROWSER-CODE-1', 'BROWSER-CODE-2']) {
    const res = await fetch(`${base}/internal/v1/orders`, {
      method: 'POST',
      headers: operator,
      body: JSON.stringify({ productId: products[0].id, quantity: 1, fieldValues: [] })
    })
    const { order } = (await res.json()).data
    await api('POST', `/v1/orders/${order.id}/take`, seller)
    const delivered = await fetch(`${base}/v1/orders/${order.id}/deliver`, {
      method: 'POST',
      headers: seller,
      body: JSON.stringify({ value: code })
    })
    if (delivered.status !== 200) throw new Error(`deliver: ${delivered.status} ${await delivered.text()}`)
    const opened = await fetch(`${base}/internal/v1/orders/${order.id}/claims`, {
      method: 'POST',
      headers: operator,
      body: JSON.stringify({ reason: 'not_working', text: 'Steam says the code was already redeemed.' })
    })
    if (opened.status !== 201) throw new Error(`claim: ${opened.status} ${await opened.text()}`)
    claimed.push((await opened.json()).data.claim)
  }
  await nav('Claims').click()
  await heading('Claims')
  const waiting = page.getByRole('table', { name: 'Waiting for your answer' })
  check((await waiting.locator('tbody tr').count()) === 2, 'Claims: both open claims wait for an answer')
  check(!(await page.content()).includes('BROWSER-CODE'), 'Claims: no delivered code on the page')
  await inspect('en-claims')
  const order = claimed[0].orderId.slice(0, 8)
  await page.getByRole('link', { name: `Replace from stock the claim on order ${order}` }).click()
  await heading('Replace the reported codes from stock?')
  check(await page.getByText('1 code goes out to the buyer, in place of the reported one.').isVisible(),
    'Claims: Replace asks first, naming how many codes go out')
  await inspect('en-claim-replace')
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByText(`The reported codes of order ${order} were replaced from stock.`).waitFor()
  const replaced = await api('GET', `/v1/claims/${claimed[0].id}`, seller)
  const newOrder = await api('GET', `/v1/orders/${claimed[0].orderId}`, seller)
  check(
    replaced.claim.status === 'replaced' && /^STEAM-AAAA-000\d$/.test(newOrder.order.deliveredValues[0]),
    'Claims: replaced from stock in the browser, as /v1 then says',
    JSON.stringify(replaced.claim)
  )
  check(
    (await page.getByRole('table', { name: 'Settled' }).locator('tbody tr').count()) === 1,
    'Claims: the replaced claim moved to the settled list'
  )
  await inspect('en-claims-replaced')
  await page.getByRole('link', { name: `Reject the claim on order ${claimed[1].orderId.slice(0, 8)}` }).click()
  await heading('Reject the claim?')
  await inspect('en-claim-reject')
  // Confirmed without the note the buyer is owed: the 400 comes back in place (htmx), the API's words at the
  // top and at the field, focus on the summary; htmx settles no style attribute (layout.eta), so no CSP report.
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.locator('.error-summary').waitFor()
  check(
    await page.locator('.error-summary').evaluate((summary) => summary === document.activeElement) &&
      (await page.locator('#note').getAttribute('aria-invalid')) === 'true',
    'Claims: a reject without a note is refused on the page, the summary focused and the field marked'
  )
  await inspect('en-claim-reject-refused')
  await page.getByRole('link', { name: 'Cancel' }).click()
  await heading('Claims')
  check(
    (await api('GET', `/v1/claims/${claimed[1].id}`, seller)).claim.status === 'open',
    'Claims: the confirmation page alone changes nothing'
  )

  await nav('Activity').click()
  await heading('Activity')
  const activity = await page.content()
  check(
    !/service_sk_|whsec_|STEAM-AAAA|BROWSER-CODE/.test(activity) && activity.includes('Browser bot'),
    'Activity names what was done, never a secret or a code'
  )
  await inspect('en-activity')
  return claimed
}
