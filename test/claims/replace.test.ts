// Claims replaced (docs/claims.md): from stock, oldest first, of the order's
// option; with the seller's values; the reported items defective for good;
// events in order; and auto replace once per order.
import t from 'tap'
import { buy } from '../fixtures/orders.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { claimAction, openedClaim, openClaim, snapshot } from '../fixtures/claims.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

async function events (app: App, shop: ShopFixture) {
  const res = await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })
  return res.json().data.events as Array<{ type: string, data: any }>
}

async function stock (app: App, shop: ShopFixture, productId: string) {
  return (await stockCall(app, shop, productId, 'GET', '')).json().data.stock
}

t.test('replace from stock: oldest first, reported items defective, order.updated then claim.resolved', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  await addValues(app, shop, product.id, ['KEY-A', 'KEY-B', 'KEY-C', 'KEY-D', 'KEY-E'])
  const order = await buy(app, product, { quantity: 3 })
  t.same(order.deliveredValues, ['KEY-A', 'KEY-B', 'KEY-C'])

  const claim = await openedClaim(app, order.id, { reason: 'not_working', text: '  two keys fail  ', valueIndexes: [2, 0] })
  t.match(claim, { orderId: order.id, productId: product.id, status: 'open', reason: 'not_working', text: 'two keys fail', valueIndexes: [0, 2], resolution: null, resolvedAt: null, escalatedAt: null })
  t.equal(Date.parse(claim.respondBy) - Date.parse(claim.createdAt), 172_800_000, 'respondBy = createdAt + 48 h')
  t.same((await app.inject({ method: 'GET', url: `/v1/claims/${claim.id}`, headers: shop.headers })).json().data.claim, claim)

  const res = await claimAction(app, shop, claim.id, 'replace')
  t.equal(res.statusCode, 200, res.body)
  const { claim: replaced, order: updated } = res.json().data
  t.match(replaced, { status: 'replaced', resolution: { kind: 'replaced', by: 'seller', note: null, amount: null } })
  t.ok(replaced.resolvedAt)
  t.same(updated.deliveredValues, ['KEY-D', 'KEY-B', 'KEY-E'], 'the oldest available items take the reported positions in order')
  t.equal(updated.deliveredValue, 'KEY-D\nKEY-B\nKEY-E')
  t.equal(updated.status, 'awaiting_confirmation', 'the order keeps its status')
  t.match(await stock(app, shop, product.id), { available: 0, delivered: 3, removed: 0, defective: 2 })

  const defective = (await stockCall(app, shop, product.id, 'GET', '/items?status=defective')).json().data.items
  t.equal(defective.length, 2)
  t.same(defective.map((i: { preview: string }) => i.preview).sort(), ['…', '…'])
  const readded = await addValues(app, shop, product.id, ['KEY-A', 'KEY-C', 'KEY-F'])
  t.match(readded, { added: 1, duplicates: 2 }, 'a value equal to a defective item is a duplicate')

  const types = (await events(app, shop)).map((e) => e.type)
  const tail = types.slice(types.indexOf('claim.opened'))
  t.same(tail.filter((type) => type !== 'message.created'), ['claim.opened', 'order.updated', 'claim.resolved', 'stock.empty'])
  const feed = await events(app, shop)
  const updatedEvent = feed.find((e) => e.type === 'order.updated')!
  t.same(updatedEvent.data.order, updated)
  t.same(feed.find((e) => e.type === 'claim.resolved')!.data.claim, replaced)
  const system = feed.filter((e) => e.type === 'message.created' && e.data.message.senderRole === 'system').map((e) => e.data.message.text)
  t.equal(system.length, 2, 'a system message for the opening and one for the replacement')
  for (const text of system) t.notMatch(text, /KEY-/, 'never a value')

  const again = await claimAction(app, shop, claim.id, 'replace')
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'CLAIM_INVALID_STATUS')
})

t.test('replace with the seller\'s values; counts checked; refusals change nothing', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  await addValues(app, shop, product.id, ['KEY-1', 'KEY-2'])
  const order = await buy(app, product, { quantity: 2 })
  const claim = await openedClaim(app, order.id, { reason: 'already_used', text: 'used', valueIndexes: [1] })

  const before = await snapshot(app, shop, order.id, product.id)
  for (const [payload, code, status] of [
    [{ values: ['A', 'B'] }, 'VALIDATION_ERROR', 400],
    [{ values: [] }, 'VALIDATION_ERROR', 400],
    [{ values: ['x\u0000'] }, 'VALIDATION_ERROR', 400],
    [{}, 'STOCK_INSUFFICIENT', 409]
  ] as const) {
    const res = await claimAction(app, shop, claim.id, 'replace', payload)
    t.equal(res.statusCode, status, `${JSON.stringify(payload)}: ${res.body}`)
    t.equal(res.json().error.code, code)
  }
  t.same(await snapshot(app, shop, order.id, product.id), before, 'nothing changed')

  const res = await claimAction(app, shop, claim.id, 'replace', { values: ['NEW-VALUE'] })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().data.order.deliveredValues, ['KEY-1', 'NEW-VALUE'])
  t.match(await stock(app, shop, product.id), { available: 0, delivered: 1, defective: 1 })
})

t.test('a claim that reports no value cannot be replaced', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  await addValues(app, shop, product.id, ['KEY-1', 'KEY-2'])
  const order = await buy(app, product)
  const claim = await openedClaim(app, order.id, { reason: 'other', text: 'wrong region', valueIndexes: [] })
  t.same(claim.valueIndexes, [])
  const res = await claimAction(app, shop, claim.id, 'replace')
  t.equal(res.statusCode, 400, res.body)
})

t.test('auto replace: at once in the opening, at most once per order; short stock leaves it open', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock', autoReplace: true })
  t.match(await stock(app, shop, product.id), { autoReplace: true, defective: 0 })
  await addValues(app, shop, product.id, ['KEY-1', 'KEY-2', 'KEY-3'])
  const order = await buy(app, product)
  const first = await openClaim(app, order.id)
  t.equal(first.statusCode, 201, first.body)
  t.match(first.json().data.claim, { status: 'replaced', resolution: { kind: 'replaced', by: 'auto' } })
  const types = (await events(app, shop)).map((e) => e.type).filter((type) => type.startsWith('claim.') || type === 'order.updated')
  t.same(types, ['claim.opened', 'order.updated', 'claim.resolved'])
  const opened = (await events(app, shop)).find((e) => e.type === 'claim.opened')!
  t.equal(opened.data.claim.status, 'open', 'claim.opened carries the claim as opened')

  const second = await openClaim(app, order.id)
  t.equal(second.statusCode, 201, second.body)
  t.equal(second.json().data.claim.status, 'open', 'the order was auto-replaced once already')
  t.match(await stock(app, shop, product.id), { available: 1, delivered: 1, defective: 1 })

  const other = await buy(app, product)
  await claimAction(app, shop, second.json().data.claim.id, 'reject', { note: 'works for us' })
  const third = await openedClaim(app, other.id)
  t.equal(third.status, 'open', 'the stock is empty: left for the shop')
})
