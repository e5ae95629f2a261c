// The deadline (docs/claims.md): an open claim past respondBy is refunded by
// `auto` exactly once, by whichever instance gets there first — also when one
// of two instances is killed mid-way — escalated claims never; and the embedded
// database runs the same sweep.
import t from 'tap'
import { act, ledger, orderIn } from '../fixtures/orders.js'
import { createProduct, emailField } from '../fixtures/products.js'
import { claimAction, openedClaim, operatorAction } from '../fixtures/claims.js'
import { fileServerEnv, startServerProcess } from '../fixtures/server-process.js'
import { waitUntil } from '../fixtures/until.js'
import { build, buildEmbedded, createShop, internalHeaders, type App, type ShopFixture } from '../helper.js'

async function deliveredOrder (app: App, shop: ShopFixture, product: Parameters<typeof orderIn>[2]) {
  const order = await orderIn(app, shop, product, 'processing')
  const res = await act(app, shop, order.id, 'deliver', { values: ['V-1'] })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().data.order as { id: string, amount: number }
}

async function claimsOf (app: App, shop: ShopFixture) {
  const res = await app.inject({ method: 'GET', url: '/v1/claims?limit=100', headers: shop.headers })
  return res.json().data.claims as Array<{ id: string, status: string, orderId: string, resolution: { by: string, amount: number } | null }>
}

t.test('two instances, one killed mid-way: every due claim refunded exactly once', async (t) => {
  const a = await build(t, { CLAIM_RESPONSE_SECONDS: 3, CLAIM_SWEEP_INTERVAL_MS: 30_000, RATE_LIMIT_MAX: 10_000 })
  const shop = await createShop(a)
  const product = await createProduct(a, shop, { fields: [emailField] })
  const due: string[] = []
  const kept: string[] = []
  for (let i = 0; i < 24; i++) {
    const order = await deliveredOrder(a, shop, product)
    const claim = await openedClaim(a, order.id)
    if (i % 6 === 0) {
      // Rejected and escalated: no deadline any more.
      await claimAction(a, shop, claim.id, 'reject', { note: 'works' })
      await operatorAction(a, claim.id, 'escalate')
      kept.push(claim.id)
    } else {
      due.push(order.id)
    }
  }
  // The setting-up instance leaves; a child instance sweeping often is killed (SIGKILL) once it has refunded some.
  await a.close()
  const child = await startServerProcess(t, await fileServerEnv({ CLAIM_SWEEP_INTERVAL_MS: '20' }))
  await child.printed(/claims past their deadline refunded/)
  child.child.kill('SIGKILL')
  await child.exited
  // Another in-process instance sweeps the rest.
  const b = await build(t, { CLAIM_SWEEP_INTERVAL_MS: 50 })
  await waitUntil('every due claim refunded', async () => (await claimsOf(b, shop)).filter((c) => c.status === 'open').length === 0, 20_000)

  const claims = await claimsOf(b, shop)
  const book = await ledger(b, shop.shopId)
  for (const orderId of due) {
    const claim = claims.find((c) => c.orderId === orderId)!
    t.equal(claim.status, 'refunded')
    t.equal(claim.resolution?.by, 'auto')
    t.same(book.entries.filter((e) => e.orderId === orderId).map((e) => e.kind), ['refund'], 'refunded once')
  }
  for (const id of kept) t.equal(claims.find((c) => c.id === id)!.status, 'escalated', 'an escalated claim has no deadline')
  const feed = await b.inject({ method: 'GET', url: '/v1/events?types=claim.resolved&limit=100', headers: shop.headers })
  const resolvedByAuto = feed.json().data.events.filter((e: { data: { claim: { resolution: { by: string } } } }) => e.data.claim.resolution.by === 'auto')
  t.equal(resolvedByAuto.length, due.length, 'one claim.resolved per due claim')
})

t.test('a refund by the deadline of a completed order takes the credit back', async (t) => {
  const app = await build(t, { CLAIM_RESPONSE_SECONDS: 1, CLAIM_SWEEP_INTERVAL_MS: 50 })
  const shop = await createShop(app)
  const product = await createProduct(app, shop, { fields: [emailField] })
  const order = await deliveredOrder(app, shop, product)
  await app.inject({ method: 'POST', url: `/internal/v1/orders/${order.id}/confirm`, headers: internalHeaders })
  const claim = await openedClaim(app, order.id)
  await waitUntil('refunded by the deadline', async () => (await claimsOf(app, shop)).every((c) => c.status === 'refunded'), 10_000)
  t.match((await claimsOf(app, shop))[0], { id: claim.id, resolution: { by: 'auto', amount: order.amount } })
  const book = await ledger(app, shop.shopId)
  t.same(book.entries.map((e) => e.kind).sort(), ['credit', 'debit', 'refund'])
  t.equal(book.balance, 0)
})

t.test('the embedded database (PGlite) sweeps too', async (t) => {
  const app = await buildEmbedded(t, { CLAIM_RESPONSE_SECONDS: 1, CLAIM_SWEEP_INTERVAL_MS: 50 })
  const shop = await createShop(app)
  const product = await createProduct(app, shop, { fields: [emailField] })
  const order = await deliveredOrder(app, shop, product)
  await openedClaim(app, order.id)
  await waitUntil('refunded on PGlite', async () => (await claimsOf(app, shop))[0].status === 'refunded', 10_000)
  const res = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })
  t.equal(res.json().data.order.status, 'cancelled')
})

t.test('an order cancelled while its claim is open: the shop\'s refund is refused, the deadline closes the claim without a second refund', async (t) => {
  const app = await build(t, { CLAIM_RESPONSE_SECONDS: 1, CLAIM_SWEEP_INTERVAL_MS: 50 })
  const shop = await createShop(app)
  const product = await createProduct(app, shop, { fields: [emailField] })
  const order = await deliveredOrder(app, shop, product)
  const claim = await openedClaim(app, order.id)
  t.equal((await act(app, shop, order.id, 'cancel', {})).statusCode, 200)
  const refused = await claimAction(app, shop, claim.id, 'refund', {})
  t.equal(refused.statusCode, 409)
  t.equal(refused.json().error.code, 'ORDER_INVALID_STATUS')
  await waitUntil('closed by the deadline', async () => (await claimsOf(app, shop))[0].status === 'refunded', 10_000)
  t.match((await claimsOf(app, shop))[0], { resolution: { by: 'auto', amount: null } })
  t.same((await ledger(app, shop.shopId)).entries.map((e) => e.kind), ['refund'], 'the cancel\'s refund only')
})
