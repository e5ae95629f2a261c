// Claims under concurrency (docs/claims.md), two instances on one database:
// concurrent answers on one claim and concurrent openings on one order — one
// wins, the rest 409; the ledger after random sequences (balance = credits −
// debits, each order refunded at most once); and the stock's accounting after
// replacements racing purchases.
import t from 'tap'
import { act, buy, confirm, ledger, orderIn } from '../fixtures/orders.js'
import { createProduct, emailField } from '../fixtures/products.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { claimAction, openClaim, openedClaim } from '../fixtures/claims.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

const key = stockKey()
const instances = async (t: Parameters<typeof build>[0]) => {
  const options = { VALUES_ENCRYPTION_KEY: key, RATE_LIMIT_MAX: 100_000 }
  return [await build(t, options), await build(t, options)] as const
}

async function deliveredOrder (app: App, shop: ShopFixture, product: Parameters<typeof orderIn>[2]) {
  const order = await orderIn(app, shop, product, 'processing')
  const res = await act(app, shop, order.id, 'deliver', { values: ['V-1', 'V-2'] })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json().data.order as { id: string, amount: number }
}

t.test('concurrent replace, refund and reject on one claim: exactly one wins', async (t) => {
  const [a, b] = await instances(t)
  const shop = await createShop(a)
  const product = await createProduct(a, shop, { fields: [emailField] })
  for (let round = 0; round < 6; round++) {
    const order = await deliveredOrder(a, shop, product)
    const claim = await openedClaim(a, order.id)
    const calls = Array.from({ length: 24 }, (_, i) => {
      const app = i % 2 === 0 ? a : b
      if (i % 3 === 0) return claimAction(app, shop, claim.id, 'replace', { values: [`N-${i}-1`, `N-${i}-2`] })
      if (i % 3 === 1) return claimAction(app, shop, claim.id, 'refund', {})
      return claimAction(app, shop, claim.id, 'reject', { note: 'works' })
    })
    const responses = await Promise.all(calls)
    const codes = responses.map((r) => r.statusCode)
    t.equal(codes.filter((c) => c === 200).length, 1, `round ${round}: one winner`)
    t.ok(responses.filter((r) => r.statusCode !== 200).every((r) => r.statusCode === 409 && r.json().error.code === 'CLAIM_INVALID_STATUS'), 'the rest 409 CLAIM_INVALID_STATUS')
    const refunds = (await ledger(a, shop.shopId)).entries.filter((e) => e.orderId === order.id)
    const winner = responses.find((r) => r.statusCode === 200)!.json().data.claim.status
    t.equal(refunds.length, winner === 'refunded' ? 1 : 0, 'refunded at most once')
    const events = await b.inject({ method: 'GET', url: '/v1/events?types=claim.resolved&limit=100', headers: shop.headers })
    t.equal(events.json().data.events.filter((e: { data: { claim: { id: string } } }) => e.data.claim.id === claim.id).length, 1, 'one claim.resolved')
  }
})

t.test('concurrent openings on one order: one claim, the rest 409 CLAIM_ALREADY_OPEN', async (t) => {
  const [a, b] = await instances(t)
  const shop = await createShop(a)
  const product = await createProduct(a, shop, { fields: [emailField] })
  for (let round = 0; round < 4; round++) {
    const order = await deliveredOrder(a, shop, product)
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => openClaim(i % 2 === 0 ? a : b, order.id)))
    t.equal(responses.filter((r) => r.statusCode === 201).length, 1, `round ${round}: one opened`)
    t.ok(responses.filter((r) => r.statusCode !== 201).every((r) => r.statusCode === 409 && r.json().error.code === 'CLAIM_ALREADY_OPEN'))
    const list = await a.inject({ method: 'GET', url: '/v1/claims?limit=100', headers: shop.headers })
    t.equal(list.json().data.claims.filter((c: { orderId: string }) => c.orderId === order.id).length, 1)
  }
})

t.test('money: after random purchases, confirms, claims and refunds, balance = credits − debits', async (t) => {
  const [a, b] = await instances(t)
  const shop = await createShop(a)
  const product = await createProduct(a, shop, { fields: [emailField] })
  let seed = 42
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  const orders: Array<{ id: string, amount: number }> = []
  for (let i = 0; i < 16; i++) orders.push(await deliveredOrder(a, shop, product))
  await Promise.all(orders.map(async (order, i) => {
    const app = i % 2 === 0 ? a : b
    if (random() < 0.6) await confirm(app, order.id)
    const opened = await openClaim(app, order.id)
    if (opened.statusCode !== 201) return
    const claimId = opened.json().data.claim.id
    const r = random()
    // Racing answers, with a cancel or a confirm thrown in.
    await Promise.all([
      claimAction(app, shop, claimId, r < 0.5 ? 'refund' : 'reject', r < 0.5 ? {} : { note: 'no' }),
      claimAction(i % 2 === 0 ? b : a, shop, claimId, 'refund', {}),
      random() < 0.5 ? act(app, shop, order.id, 'cancel', {}) : confirm(app, order.id)
    ])
  }))
  const book = await ledger(a, shop.shopId)
  const cents = (kind: string) => book.entries.filter((e) => e.kind === kind).reduce((sum, e) => sum + Math.round(e.amount * 100), 0)
  t.equal(Math.round(book.balance * 100), cents('credit') - cents('debit'), 'balance = credits − debits')
  for (const order of orders) {
    const kinds = book.entries.filter((e) => e.orderId === order.id).map((e) => e.kind)
    t.ok(kinds.filter((k) => k === 'refund').length <= 1, 'refunded at most once')
    if (kinds.includes('debit')) t.ok(kinds.includes('credit') && kinds.includes('refund'), 'a debit only takes back a credit, with its refund')
    const status = (await a.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })).json().data.order.status
    t.equal(kinds.includes('refund'), status === 'cancelled', 'refunded exactly when cancelled')
  }
})

t.test('stock accounting: available + delivered + removed + defective = added, replacements racing purchases', async (t) => {
  const [a, b] = await instances(t)
  const shop = await createShop(a)
  const product = await stockProduct(a, shop, { autoDelivery: 'stock' })
  const values = Array.from({ length: 60 }, (_, i) => `CODE-${String(i).padStart(3, '0')}`)
  await addValues(a, shop, product.id, values)
  const delivered: Array<{ id: string }> = []
  for (let i = 0; i < 10; i++) delivered.push(await buy(a, product))
  const claims = await Promise.all(delivered.map((order) => openedClaim(a, order.id)))
  const results = await Promise.all([
    ...claims.map((claim, i) => claimAction(i % 2 === 0 ? a : b, shop, claim.id, i % 4 === 3 ? 'refund' : 'replace', {})),
    ...Array.from({ length: 30 }, (_, i) => buy(i % 2 === 0 ? b : a, product))
  ])
  const answers = results.slice(0, claims.length) as Array<{ statusCode: number, body: string }>
  t.ok(answers.every((r) => r.statusCode === 200 || (r.statusCode === 409 && r.body.includes('STOCK_INSUFFICIENT'))), 'replaced or short')
  const stock = (await stockCall(a, shop, product.id, 'GET', '')).json().data.stock
  t.equal(stock.available + stock.delivered + stock.removed + stock.defective, values.length, JSON.stringify(stock))
  t.equal(stock.defective, answers.filter((r) => r.statusCode === 200).length, 'one defective item per settled claim')
  // Every delivered value belongs to exactly one order.
  const orders = await a.inject({ method: 'GET', url: '/v1/orders?status=awaiting_confirmation,cancelled&limit=100', headers: shop.headers })
  const held = orders.json().data.orders.filter((o: { status: string }) => o.status === 'awaiting_confirmation').flatMap((o: { deliveredValues: string[] }) => o.deliveredValues)
  t.equal(new Set(held).size, held.length, 'no value delivered twice')
  t.equal(held.length, stock.delivered, 'the delivered count is the values the orders hold')
})
