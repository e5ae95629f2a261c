// The claim's life (docs/claims.md) through HTTP: opening rules and refusals,
// refund from awaiting_confirmation and from completed (the debit), reject,
// escalation, the operator's resolve, the list, visibility and idempotency.
import t from 'tap'
import { act, buy, confirm, ledger, orderIn } from '../fixtures/orders.js'
import { createProduct, emailField } from '../fixtures/products.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { claimAction, openClaim, openedClaim, operatorAction, snapshot } from '../fixtures/claims.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

async function feedTypes (app: App, shop: ShopFixture) {
  const res = await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })
  return (res.json().data.events as Array<{ type: string }>).map((e) => e.type).filter((type) => type !== 'message.created')
}

async function setup (t: Parameters<typeof build>[0], overrides = {}) {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey(), ...overrides })
  const shop = await createShop(app)
  const product = await createProduct(app, shop, { fields: [emailField] })
  return { app, shop, product }
}

const deliveredOrder = async (app: App, shop: ShopFixture, product: Parameters<typeof orderIn>[2], values = ['V-1', 'V-2']) => {
  const order = await orderIn(app, shop, product, 'processing')
  const res = await act(app, shop, order.id, 'deliver', { values })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().data.order
}

t.test('opening: statuses, window, positions, one at a time, three in all', async (t) => {
  const { app, shop, product } = await setup(t)
  for (const status of ['paid', 'processing', 'cancelled'] as const) {
    const order = await orderIn(app, shop, product, status)
    const res = await openClaim(app, order.id)
    t.equal(res.statusCode, 409, status)
    t.equal(res.json().error.code, 'ORDER_INVALID_STATUS')
  }
  t.equal((await openClaim(app, '00000000-0000-4000-8000-000000000000')).json().error.code, 'ORDER_NOT_FOUND')
  t.equal((await openClaim(app, 'not-an-id')).statusCode, 404)

  const order = await deliveredOrder(app, shop, product)
  const before = await snapshot(app, shop, order.id, product.id)
  for (const payload of [
    { reason: 'not_working', text: 'x', valueIndexes: [2] },
    { reason: 'not_working', text: 'x', valueIndexes: [1, 1] },
    { reason: 'not_working', text: 'x', valueIndexes: [-1] },
    { reason: 'broken', text: 'x' },
    { reason: 'not_working', text: '   ' },
    { reason: 'not_working', text: 'x'.repeat(2001) },
    { reason: 'not_working', text: 'a\u0000b' }
  ]) {
    const res = await openClaim(app, order.id, payload)
    t.equal(res.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)}: ${res.body.slice(0, 200)}`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
  t.same(await snapshot(app, shop, order.id, product.id), before, 'refused openings change nothing')

  const first = await openedClaim(app, order.id)
  t.same(first.valueIndexes, [0, 1], 'absent: all of them')
  const again = await openClaim(app, order.id)
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'CLAIM_ALREADY_OPEN')
  t.equal((await claimAction(app, shop, first.id, 'reject', { note: 'works' })).statusCode, 200)
  const second = await openedClaim(app, order.id)
  t.equal((await claimAction(app, shop, second.id, 'reject', { note: 'works' })).statusCode, 200)
  const third = await openedClaim(app, order.id)
  t.equal((await operatorAction(app, first.id, 'escalate')).json().error.code, 'CLAIM_ALREADY_OPEN', 'an escalation while another claim is open')
  t.equal((await claimAction(app, shop, third.id, 'reject', { note: 'works' })).statusCode, 200)
  const escalated = await operatorAction(app, first.id, 'escalate', { text: 'It really does not work' })
  t.equal(escalated.statusCode, 200, escalated.body)
  t.equal((await openClaim(app, order.id)).json().error.code, 'CLAIM_ALREADY_OPEN', 'wins over the limit')
  await operatorAction(app, first.id, 'resolve', { outcome: 'reject', note: 'Checked: it works' })
  const fourth = await openClaim(app, order.id)
  t.equal(fourth.statusCode, 409)
  t.equal(fourth.json().error.code, 'CLAIM_LIMIT')
})

t.test('a completed order can be claimed only within CLAIM_WINDOW_DAYS of delivery', async (t) => {
  const { app, shop, product } = await setup(t, { CLAIM_WINDOW_DAYS: 0 })
  const order = await deliveredOrder(app, shop, product)
  await confirm(app, order.id)
  await new Promise((resolve) => setTimeout(resolve, 5))
  const res = await openClaim(app, order.id)
  t.equal(res.statusCode, 409)
  t.equal(res.json().error.code, 'ORDER_INVALID_STATUS')
})

t.test('refund from awaiting_confirmation: cancelled with a refund row; events', async (t) => {
  const { app, shop, product } = await setup(t)
  const order = await deliveredOrder(app, shop, product)
  const claim = await openedClaim(app, order.id)
  const res = await claimAction(app, shop, claim.id, 'refund', { note: '  sorry  ' })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json().data, { claim: { status: 'refunded', resolution: { kind: 'refunded', by: 'seller', note: 'sorry', amount: order.amount } }, order: { status: 'cancelled' } })
  const book = await ledger(app, shop.shopId)
  t.same(book.entries.map((e) => e.kind), ['refund'])
  t.equal(book.balance, 0)
  const types = await feedTypes(app, shop)
  t.same(types.slice(types.indexOf('claim.opened')), ['claim.opened', 'order.cancelled', 'claim.resolved'])
  for (const action of ['refund', 'reject', 'replace'] as const) {
    const again = await claimAction(app, shop, claim.id, action, action === 'reject' ? { note: 'no' } : { values: ['x', 'y'] })
    t.equal(again.json().error?.code, 'CLAIM_INVALID_STATUS', action)
  }
})

t.test('refund from completed: a debit takes the credit back; balance = credits − debits', async (t) => {
  const { app, shop, product } = await setup(t)
  const kept = await deliveredOrder(app, shop, product)
  await confirm(app, kept.id)
  const order = await deliveredOrder(app, shop, product)
  await confirm(app, order.id)
  t.equal((await ledger(app, shop.shopId)).balance, kept.amount + order.amount)
  const claim = await openedClaim(app, order.id, { reason: 'wrong_item', text: 'wrong game' })
  const res = await claimAction(app, shop, claim.id, 'refund')
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().data.order.status, 'cancelled')
  t.equal(res.json().data.claim.resolution.note, null)
  const book = await ledger(app, shop.shopId)
  t.same(book.entries.filter((e) => e.orderId === order.id).map((e) => e.kind).sort(), ['credit', 'debit', 'refund'])
  t.equal(book.balance, kept.amount)
})

t.test('reject needs a note; escalation within the window; resolve only escalated', async (t) => {
  const { app, shop, product } = await setup(t)
  const order = await deliveredOrder(app, shop, product)
  const claim = await openedClaim(app, order.id)
  t.equal((await operatorAction(app, claim.id, 'resolve', { outcome: 'refund' })).json().error.code, 'CLAIM_INVALID_STATUS', 'resolve of an open claim')
  t.equal((await operatorAction(app, claim.id, 'escalate')).json().error.code, 'CLAIM_INVALID_STATUS', 'escalate of an open claim')
  for (const payload of [undefined, {}, { note: '  ' }, { note: 'x'.repeat(1001) }]) {
    const res = await claimAction(app, shop, claim.id, 'reject', payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
  }
  const rejected = await claimAction(app, shop, claim.id, 'reject', { note: 'The key was redeemed on your account' })
  t.match(rejected.json().data.claim, { status: 'rejected', resolution: { kind: 'rejected', by: 'seller', note: 'The key was redeemed on your account', amount: null } })
  const escalated = await operatorAction(app, claim.id, 'escalate', {})
  t.equal(escalated.statusCode, 200, escalated.body)
  t.match(escalated.json().data.claim, { status: 'escalated', resolution: null, resolvedAt: null })
  t.ok(escalated.json().data.claim.escalatedAt)
  t.equal((await claimAction(app, shop, claim.id, 'reject', { note: 'no' })).json().error.code, 'CLAIM_INVALID_STATUS', 'reject is for open claims only')
  const resolved = await operatorAction(app, claim.id, 'resolve', { outcome: 'refund', note: 'refunded by support' })
  t.equal(resolved.statusCode, 200, resolved.body)
  t.match(resolved.json().data, { claim: { status: 'refunded', resolution: { by: 'operator', note: 'refunded by support', amount: order.amount } }, order: { status: 'cancelled' } })
  const types = await feedTypes(app, shop)
  t.same(types.slice(types.indexOf('claim.opened')), ['claim.opened', 'claim.resolved', 'claim.escalated', 'order.cancelled', 'claim.resolved'])
})

t.test('escalation after the window is refused; the operator\'s rejection is final', async (t) => {
  const { app, shop, product } = await setup(t, { CLAIM_WINDOW_DAYS: 0 })
  const order = await deliveredOrder(app, shop, product)
  const claim = await openedClaim(app, order.id)
  await claimAction(app, shop, claim.id, 'reject', { note: 'works' })
  await new Promise((resolve) => setTimeout(resolve, 5))
  const late = await operatorAction(app, claim.id, 'escalate')
  t.equal(late.statusCode, 409)
  t.equal(late.json().error.code, 'CLAIM_INVALID_STATUS')
})

t.test('the operator\'s reject without a note: the resolution\'s note is null, as given', async (t) => {
  const { app, shop, product } = await setup(t)
  const order = await deliveredOrder(app, shop, product)
  const claim = await openedClaim(app, order.id)
  await claimAction(app, shop, claim.id, 'reject', { note: 'works' })
  t.equal((await operatorAction(app, claim.id, 'escalate')).statusCode, 200)
  const resolved = await operatorAction(app, claim.id, 'resolve', { outcome: 'reject' })
  t.equal(resolved.statusCode, 200, resolved.body)
  t.same(resolved.json().data.claim.resolution, { kind: 'rejected', by: 'operator', note: null, amount: null })
  const read = await app.inject({ method: 'GET', url: `/v1/claims/${claim.id}`, headers: shop.headers })
  t.equal(read.json().data.claim.resolution.note, null, 'read back: still null')
})

t.test('list: newest first, paged, filtered; another shop sees nothing; claims of orders without automation stay invisible', async (t) => {
  const { app, shop, product } = await setup(t)
  const ids: string[] = []
  for (let i = 0; i < 12; i++) {
    const order = await deliveredOrder(app, shop, product, ['V'])
    const claim = await openedClaim(app, order.id)
    if (i % 3 === 0) await claimAction(app, shop, claim.id, 'reject', { note: 'works' })
    ids.push(claim.id)
  }
  const seen: string[] = []
  let after: string | null = null
  do {
    const res: Awaited<ReturnType<App['inject']>> = await app.inject({ method: 'GET', url: `/v1/claims?limit=5${after ? `&after=${after}` : ''}`, headers: shop.headers })
    t.equal(res.statusCode, 200, res.body)
    seen.push(...res.json().data.claims.map((c: { id: string }) => c.id))
    after = res.json().data.nextCursor
  } while (after !== null)
  t.same(seen, [...ids].reverse(), 'every claim once, newest first')
  const open = await app.inject({ method: 'GET', url: '/v1/claims?status=rejected,escalated&limit=100', headers: shop.headers })
  t.equal(open.json().data.claims.length, 4)
  t.equal((await app.inject({ method: 'GET', url: `/v1/claims?productId=${product.id}&status=open`, headers: shop.headers })).json().data.claims.length, 8)
  t.equal((await app.inject({ method: 'GET', url: '/v1/claims?after=garbage', headers: shop.headers })).statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/v1/claims?status=closed', headers: shop.headers })).statusCode, 400)

  const other = await createShop(app, 'Other')
  t.equal((await app.inject({ method: 'GET', url: `/v1/claims/${ids[1]}`, headers: other.headers })).json().error.code, 'NOT_FOUND')
  t.equal((await claimAction(app, other, ids[1], 'refund')).statusCode, 404)
  t.same((await app.inject({ method: 'GET', url: '/v1/claims', headers: other.headers })).json().data, { claims: [], nextCursor: null })

  // A product without automation, sold from stock: its claim exists for the operator but not through /v1.
  const internal = await stockProduct(app, shop, { autoDelivery: 'stock' }, { external: false })
  await addValues(app, shop, internal.id, ['H-1'])
  const hidden = await buy(app, internal)
  t.equal(hidden.status, 'awaiting_confirmation')
  const before = await feedTypes(app, shop)
  const claim = await openedClaim(app, hidden.id)
  t.equal((await app.inject({ method: 'GET', url: `/v1/claims/${claim.id}`, headers: shop.headers })).statusCode, 404)
  t.equal((await claimAction(app, shop, claim.id, 'refund')).statusCode, 404)
  t.notOk((await app.inject({ method: 'GET', url: '/v1/claims?limit=100', headers: shop.headers })).json().data.claims.some((c: { id: string }) => c.id === claim.id))
  t.same(await feedTypes(app, shop), before, 'no event')
})

t.test('Idempotency-Key on the seller\'s and the operator\'s POSTs', async (t) => {
  const { app, shop, product } = await setup(t)
  const order = await deliveredOrder(app, shop, product)
  const key = { 'idempotency-key': 'claim-open-1' }
  const first = await openClaim(app, order.id, { reason: 'not_working', text: 'broken' }, key)
  const replay = await openClaim(app, order.id, { reason: 'not_working', text: 'broken' }, key)
  t.equal(first.statusCode, 201)
  t.equal(replay.statusCode, 201)
  t.equal(replay.headers['idempotency-replayed'], 'true')
  t.equal(replay.body, first.body)
  t.equal((await openClaim(app, order.id, { reason: 'other', text: 'broken' }, key)).statusCode, 422)
  const claimId = first.json().data.claim.id
  const refund = await claimAction(app, shop, claimId, 'refund', {}, { 'idempotency-key': 'r-1' })
  const again = await claimAction(app, shop, claimId, 'refund', {}, { 'idempotency-key': 'r-1' })
  t.equal(refund.statusCode, 200)
  t.equal(again.headers['idempotency-replayed'], 'true')
  t.same((await ledger(app, shop.shopId)).entries.map((e) => e.kind), ['refund'], 'refunded once')
})

t.test('stock counts stay whole: available + delivered + removed + defective = added', async (t) => {
  const { app, shop } = await setup(t)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  await addValues(app, shop, product.id, ['K1', 'K2', 'K3', 'K4'])
  const order = await buy(app, product, { quantity: 2 })
  const claim = await openedClaim(app, order.id, { reason: 'not_working', text: 'x', valueIndexes: [1] })
  t.equal((await claimAction(app, shop, claim.id, 'refund')).statusCode, 200)
  const stock = (await stockCall(app, shop, product.id, 'GET', '')).json().data.stock
  t.match(stock, { available: 2, delivered: 1, removed: 0, defective: 1 })
})
