// The state machine under concurrency: two app instances on one database (and one
// Redis) receive conflicting requests at the same moment.
import t from 'tap'
import { createProduct, productInput } from '../fixtures/products.js'
import { act, buy, confirm, ledger, orderIn } from '../fixtures/orders.js'
import { build, createShop } from '../helper.js'

t.test('50 simultaneous takes across two instances: exactly one wins', async (t) => {
  const a = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const b = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const shop = await createShop(a)
  const product = await createProduct(a, shop)
  for (let round = 0; round < 3; round++) {
    const order = await orderIn(a, shop, product, 'paid')
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => act(i % 2 === 0 ? a : b, shop, order.id, 'take')))
    const codes = responses.map((r) => r.statusCode)
    t.equal(codes.filter((c) => c === 200).length, 1, `round ${round}: one 200`)
    t.equal(codes.filter((c) => c === 409).length, 49, `round ${round}: 49 × 409`)
    t.ok(responses.filter((r) => r.statusCode === 409).every((r) => r.json().error.code === 'ORDER_INVALID_STATUS'))
    const final = await b.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })
    t.equal(final.json().data.order.takenAt, responses.find((r) => r.statusCode === 200)!.json().data.order.takenAt, 'the winner\'s takenAt stands')
  }
})

t.test('50 simultaneous cancels: one refund row', async (t) => {
  const a = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const b = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const shop = await createShop(a)
  const product = await createProduct(a, shop)
  for (const status of ['paid', 'processing', 'awaiting_confirmation'] as const) {
    const order = await orderIn(a, shop, product, status)
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => act(i % 2 === 0 ? a : b, shop, order.id, 'cancel', {})))
    t.equal(responses.filter((r) => r.statusCode === 200).length, 1, `from ${status}: one cancel succeeds`)
    t.equal(responses.filter((r) => r.statusCode === 409).length, 49)
    const refunds = (await ledger(a, shop.shopId)).entries.filter((e) => e.orderId === order.id)
    t.same(refunds.map((e) => [e.kind, e.amount]), [['refund', order.amount]], `from ${status}: exactly one refund`)
  }
})

t.test('cancel racing confirm: one wins and the ledger matches the final status', async (t) => {
  const a = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const b = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const shop = await createShop(a)
  const product = await createProduct(a, shop)
  const winners = new Set<string>()
  for (let round = 0; round < 12; round++) {
    const order = await orderIn(a, shop, product, 'awaiting_confirmation')
    // Alternate who fires first and on which instance.
    const [cancel, confirmed] = round % 2 === 0
      ? await Promise.all([act(a, shop, order.id, 'cancel', {}), confirm(b, order.id)])
      : await Promise.all([confirm(a, order.id), act(b, shop, order.id, 'cancel', {})]).then(([c, x]) => [x, c])
    t.same([cancel.statusCode, confirmed.statusCode].sort(), [200, 409], `round ${round}: exactly one wins`)
    const final = (await a.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })).json().data.order.status
    const kinds = (await ledger(a, shop.shopId)).entries.filter((e) => e.orderId === order.id).map((e) => e.kind)
    if (cancel.statusCode === 200) {
      t.equal(final, 'cancelled')
      t.same(kinds, ['refund'], `round ${round}: cancelled → one refund, no credit`)
    } else {
      t.equal(final, 'completed')
      t.same(kinds, ['credit'], `round ${round}: completed → one credit, no refund`)
    }
    winners.add(final)
  }
  t.comment(`final statuses seen: ${[...winners].join(', ')}`)
  const { entries, balance } = await ledger(a, shop.shopId)
  const credits = entries.filter((e) => e.kind === 'credit').length
  t.equal(balance, Math.round(credits * 499.9 * 100) / 100, 'balance = the credits of the completed orders')
})

t.test('purchases, transitions and automation switched off and on at once: the list and its totals stay exact', async (t) => {
  const a = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const b = await build(t, { RATE_LIMIT_MAX: 10_000 })
  const shop = await createShop(a)
  const product = await createProduct(a, shop)
  const paid = await Promise.all(Array.from({ length: 20 }, () => buy(a, product)))
  // Field ids are kept, so purchases running meanwhile stay valid.
  const toggle = (external: boolean) => b.inject({ method: 'PUT', url: `/v1/products/${product.id}`, headers: shop.headers, payload: productInput(product.categoryId, { external, fields: product.fields }) })

  const work: Array<Promise<unknown>> = []
  for (let i = 0; i < 20; i++) {
    work.push(buy(i % 2 ? a : b, product))
    work.push(act(i % 2 ? b : a, shop, paid[i].id, i % 3 === 0 ? 'cancel' : 'take', i % 3 === 0 ? {} : undefined))
    if (i % 5 === 0) work.push(toggle(i % 10 !== 0))
  }
  await Promise.all(work)

  for (const external of [false, true]) {
    t.equal((await toggle(external)).statusCode, 200)
    for (const status of ['paid', 'processing', 'cancelled', 'paid,processing,cancelled']) {
      const res = await a.inject({ method: 'GET', url: `/v1/orders?status=${status}&limit=100`, headers: shop.headers })
      const { orders, total } = res.json().data as { orders: Array<{ status: string }>, total: number }
      t.equal(total, orders.length, `automation ${external ? 'on' : 'off'}, ${status}: the total counts exactly the listed orders`)
      if (!external) t.equal(total, 0, 'nothing is visible without automation')
    }
  }
  const all = await a.inject({ method: 'GET', url: '/v1/orders?status=paid,processing,awaiting_confirmation,completed,cancelled&limit=100', headers: shop.headers })
  t.equal(all.json().data.total, 40, 'every purchase is visible again, each once')
})
