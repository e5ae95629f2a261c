// The portal's Claims page (docs/portal.md): the shop's claims, waiting ones
// first, and the three answers through the /v1 calls' own actions — what the page
// does is what /v1 then says; refusals (the claim's state, CSRF, read-only,
// another shop's claim) change nothing. And the Stock page's autoReplace.
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { claimAction, openedClaim, operatorAction, snapshot } from '../fixtures/claims.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { buy } from '../fixtures/orders.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'

type Sender = PortalSession | { headers: Record<string, string> }
const post = (app: App, session: Sender, url: string, fields: Record<string, string> = {}) => app.inject({
  method: 'POST',
  url,
  ...form(fields),
  headers: { ...form({}).headers, ...session.headers, 'hx-request': 'true' }
})
const apiOrder = async (app: App, shop: ShopFixture, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/orders/${id}`, headers: shop.headers })).json().data.order
const page = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const apiClaim = async (app: App, shop: ShopFixture, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/claims/${id}`, headers: shop.headers })).json().data.claim

/** A shop selling codes from stock, with `count` orders of one code each, each claimed. */
async function claimedOrders (app: App, count: number, codes = count) {
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  const values = Array.from({ length: codes }, (_, i) => `CODE-${String(i).padStart(3, '0')}-SECRET`)
  await addValues(app, shop, product.id, values)
  const claims = []
  for (let i = 0; i < count; i++) {
    const order = await buy(app, product)
    claims.push(await openedClaim(app, order.id, { reason: 'not_working', text: `Code ${i} does not work` }))
  }
  return { shop, product, claims }
}

t.test('Claims: waiting claims first, settled ones after, each list paged, in both languages', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const { shop, claims } = await claimedOrders(app, 25)
  // 22 rejected (settled), 1 escalated, 2 open: the waiting ones are the last opened.
  for (const claim of claims.slice(0, 23)) {
    t.equal((await claimAction(app, shop, claim.id, 'reject', { note: 'Works for us' })).statusCode, 200)
  }
  t.equal((await operatorAction(app, claims[0].id, 'escalate', { text: 'It really does not' })).statusCode, 200)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const first = await page(app, session, '/portal/claims')
  t.equal(first.statusCode, 200, first.body)
  t.match(first.body, /<a href="\/portal\/claims" aria-current="page">Claims<\/a> <span class="badge">/)
  const [waiting, settled] = first.body.split('<h2 id="settled">')
  const rowIds = (html: string) => [...html.matchAll(/<tr id="claim-([0-9a-f-]{36})">/g)].map((m) => m[1])
  t.same(rowIds(waiting), [claims[24].id, claims[23].id, claims[0].id], 'open and escalated, newest first')
  t.match(waiting, /Escalated to the marketplace: no deadline/)
  t.match(waiting, /Code 24 does not work/)
  t.match(waiting, /Does not work/)
  t.equal(rowIds(settled).length, 20, 'a page of settled claims')
  t.same(rowIds(settled), claims.slice(1, 23).reverse().slice(0, 20).map((c) => c.id))
  t.match(settled, /Works for us/)
  const older = /href="(\/portal\/claims\?after=[^"#]+)#settled"/.exec(settled)
  t.ok(older, 'a link to the older settled claims')
  const second = await page(app, session, older![1].replaceAll('&amp;', '&'))
  t.same(rowIds(second.body.split('<h2 id="settled">')[1]), [claims[2].id, claims[1].id])
  t.match(second.body, /Back to the newest/)
  t.notMatch(first.body, /CODE-\d{3}-SECRET/, 'no delivered value on the page')

  const ru = await enterPortal(app, shop.shopId)
  const russian = await page(app, ru, '/portal/claims')
  t.match(russian.body, /<a href="\/portal\/claims" aria-current="page">Претензии<\/a> <span class="badge">/)
  t.match(russian.body, /Ждут вашего ответа/)
  t.match(russian.body, /Заменить со склада/)
  t.match(russian.body, /Не работает/)
})

t.test('Claims: replace, refund and reject through the page do what /v1 does', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const { shop, product, claims } = await claimedOrders(app, 3, 4)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const [toReplace, toRefund, toReject] = claims

  const replaced = await post(app, session, `/portal/claims/${toReplace.id}/replace`)
  t.equal(replaced.statusCode, 200, replaced.body)
  t.match(replaced.body, `The reported codes of order ${toReplace.orderId.slice(0, 8)} were replaced from stock.`)
  t.equal(replaced.headers['hx-push-url'], '/portal/claims')
  const replacedClaim = await apiClaim(app, shop, toReplace.id)
  t.match(replacedClaim, { status: 'replaced', resolution: { kind: 'replaced', by: 'seller' } })
  const order = await apiOrder(app, shop, toReplace.orderId)
  t.same(order.deliveredValues, ['CODE-003-SECRET'], 'the next code from stock')
  t.notMatch(replaced.body, /CODE-003-SECRET/, 'the page shows no value')
  t.match((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock, { available: 0, defective: 1 })

  const confirm = await page(app, session, `/portal/claims/${toRefund.id}/refund`)
  t.equal(confirm.statusCode, 200)
  t.match(confirm.body, /Refund the whole order\?/)
  t.match(confirm.body, /This cannot be undone\./)
  t.match(confirm.body, /<button type="submit" class="button button--warning">Confirm<\/button>/)
  t.equal((await apiClaim(app, shop, toRefund.id)).status, 'open', 'the confirmation changes nothing')
  const refunded = await post(app, session, `/portal/claims/${toRefund.id}/refund`, { note: '  Sorry about that  ' })
  t.equal(refunded.statusCode, 200, refunded.body)
  t.match(refunded.body, `Order ${toRefund.orderId.slice(0, 8)} was refunded.`)
  t.match(await apiClaim(app, shop, toRefund.id), {
    status: 'refunded',
    resolution: { kind: 'refunded', by: 'seller', note: 'Sorry about that' }
  })
  const refundedOrder = await apiOrder(app, shop, toRefund.orderId)
  t.equal(refundedOrder.status, 'cancelled')

  // Reject needs a note: without one the API's rule is said next to the field, and nothing changes.
  const rejectPage = await page(app, session, `/portal/claims/${toReject.id}/reject`)
  t.match(rejectPage.body, /Reject the claim\?/)
  const noNote = await post(app, session, `/portal/claims/${toReject.id}/reject`, { note: '   ' })
  t.equal(noNote.statusCode, 400)
  t.match(noNote.body, /href="#note">Note: enter 1 to 1000 characters\./)
  t.match(noNote.body, /id="note-error"/)
  t.equal((await apiClaim(app, shop, toReject.id)).status, 'open')
  const note = 'The code was redeemed by you'
  const rejected = await post(app, session, `/portal/claims/${toReject.id}/reject`, { note })
  t.equal(rejected.statusCode, 200, rejected.body)
  const rejectedClaim = await apiClaim(app, shop, toReject.id)
  t.match(rejectedClaim, { status: 'rejected', resolution: { kind: 'rejected', by: 'seller', note } })

  const activity = await page(app, session, '/portal/activity')
  t.match(activity.body, `Replaced 1 code of the claim on order ${toReplace.orderId.slice(0, 8)} from stock`)
  t.match(activity.body, `Refunded order ${toRefund.orderId.slice(0, 8)} on its claim`)
  t.match(activity.body, `Rejected the claim on order ${toReject.orderId.slice(0, 8)}`)
  t.notMatch(activity.body, /CODE-|Sorry about that|redeemed/, 'no value and no note in the Activity page')
})

t.test('Claims: refusals change nothing (state, short stock, CSRF, read-only, another shop)', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const { shop, product, claims } = await claimedOrders(app, 2)
  const [rejectedClaim, openClaim] = claims
  t.equal((await claimAction(app, shop, rejectedClaim.id, 'reject', { note: 'No' })).statusCode, 200)
  const before = await snapshot(app, shop, openClaim.orderId, product.id)
  const rejectedBefore = await snapshot(app, shop, rejectedClaim.orderId, product.id)
  for (const locale of ['en', 'ru']) {
    const session = await enterPortal(app, shop.shopId, { locale })
    const again = await post(app, session, `/portal/claims/${rejectedClaim.id}/replace`)
    t.equal(again.statusCode, 409)
    t.match(again.body, /class="error-summary"/)
    const words = locale === 'en' ? 'The claim no longer allows this answer' : 'Претензия уже не позволяет этот ответ'
    t.match(again.body, words)
    const refund = await post(app, session, `/portal/claims/${rejectedClaim.id}/refund`)
    t.equal(refund.statusCode, 409)
    // No code left in stock: the API's STOCK_INSUFFICIENT, in words.
    const short = await post(app, session, `/portal/claims/${openClaim.id}/replace`)
    t.equal(short.statusCode, 409)
    t.match(short.body, locale === 'en' ? /The stock has too few codes/ : /На складе не хватает кодов/)
  }
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const noCsrf = await post(app, { headers: { cookie: session.cookie } }, `/portal/claims/${openClaim.id}/refund`)
  t.equal(noCsrf.statusCode, 403)
  t.equal(noCsrf.json().error.code, 'CSRF_INVALID')
  const readOnly = await enterPortal(app, shop.shopId, { locale: 'en', readOnly: true })
  const list = await page(app, readOnly, '/portal/claims')
  t.equal(list.statusCode, 200)
  t.notMatch(list.body, /Replace from stock|\/refund"/, 'a read-only session is offered no answer')
  for (const action of ['replace', 'refund', 'reject']) {
    const refused = await post(app, readOnly, `/portal/claims/${openClaim.id}/${action}`, { note: 'x' })
    t.equal(refused.statusCode, 403)
    t.equal(refused.json().error.code, 'READ_ONLY')
  }

  const other = await createShop(app)
  const stranger = await enterPortal(app, other.shopId, { locale: 'en' })
  const strangers = await page(app, stranger, '/portal/claims')
  t.notMatch(strangers.body, new RegExp(openClaim.id), 'another shop\'s claims are not listed')
  t.equal((await page(app, stranger, `/portal/claims/${openClaim.id}/refund`)).statusCode, 404)
  for (const action of ['replace', 'refund', 'reject']) {
    const foreign = await post(app, stranger, `/portal/claims/${openClaim.id}/${action}`, { note: 'Not yours' })
    t.equal(foreign.statusCode, 404, action)
    t.match(foreign.body, /Page not found/)
  }
  t.equal((await page(app, session, '/portal/claims/not-a-uuid/reject')).statusCode, 404)
  const after = await snapshot(app, shop, openClaim.orderId, product.id)
  t.same(after, before, 'the open claim, its order, stock, ledger and feed unchanged')
  t.same(await snapshot(app, shop, rejectedClaim.orderId, product.id), rejectedBefore)
})

t.test('Stock: autoReplace is set on the settings page, as PATCH sets it', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const settings = await page(app, session, `/portal/stock/${product.id}/settings`)
  t.match(settings.body, /Replace the codes of a claim from stock at once/)
  t.match(settings.body, /id="auto-replace-no" name="autoReplace" value="false" checked/)
  const fields = { autoDelivery: 'stock', lowStockThreshold: '0', deactivateWhenEmpty: 'false', optionFieldId: '' }
  const saved = await post(app, session, `/portal/stock/${product.id}/settings`, { ...fields, autoReplace: 'true' })
  t.equal(saved.statusCode, 200, saved.body)
  t.match(saved.body, /<dt>Replace claimed codes automatically<\/dt><dd>Yes<\/dd>/)
  t.equal((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock.autoReplace, true)
  const bad = await post(app, session, `/portal/stock/${product.id}/settings`, { ...fields, autoReplace: 'maybe' })
  t.equal(bad.statusCode, 400)
  const choose =
    /href="#auto-replace-yes">Replace the codes of a claim from stock at once, [^<]*: choose one of the options\./
  t.match(bad.body, choose)
  const kept = (await stockCall(app, shop, product.id, 'GET', '')).json().data.stock
  t.equal(kept.autoReplace, true, 'a refused change changes nothing')
  const ru = await enterPortal(app, shop.shopId)
  const russian = await page(app, ru, `/portal/stock/${product.id}`)
  t.match(russian.body, /Заменять коды из претензий автоматически<\/dt><dd>Да/)
  // With it, a claim on a code from this stock is replaced at once (docs/claims.md).
  await addValues(app, shop, product.id, ['AUTO-1', 'AUTO-2'])
  const order = await buy(app, product)
  const claim = await openedClaim(app, order.id)
  t.equal(claim.status, 'replaced')
  t.match((await page(app, session, '/portal/claims')).body, /Replaced<br><span class="hint">automatically/)
})
