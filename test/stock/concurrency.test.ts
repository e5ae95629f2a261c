// Never twice, never partial (docs/stock.md): two instances on one database,
// concurrent purchases of quantities 1–3 against fewer items than asked for,
// while another client adds and removes items; and waiting orders filled by an
// upload racing new purchases. Repeated for several rounds.
import t from 'tap'

type Tap = import('tap').Test
import { stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { build, createShop, internalHeaders, type App, type ShopFixture } from '../helper.js'

const ROUNDS = 4
const PURCHASES = 64

interface Order { id: string, status: string, quantity: number, deliveredValues: string[] }

async function purchase (app: App, product: { id: string, fields: Array<{ id: string }> }, quantity: number): Promise<Order> {
  const res = await app.inject({ method: 'POST', url: '/internal/v1/orders', headers: internalHeaders, payload: { productId: product.id, quantity, fieldValues: [{ fieldId: product.fields[0].id, value: 'b@example.com' }] } })
  if (res.statusCode !== 201) throw new Error(`purchase ${res.statusCode} ${res.body}`)
  return res.json().data.order
}

async function allEvents (app: App, shop: ShopFixture) {
  const events: Array<{ type: string, data: any }> = []
  let after = ''
  for (;;) {
    const res = (await app.inject({ method: 'GET', url: `/v1/events?limit=100${after}`, headers: shop.headers })).json().data
    events.push(...res.events)
    if (res.events.length === 0) return events
    after = `&after=${res.nextCursor}`
  }
}

async function check (t: Tap, app: App, shop: ShopFixture, productId: string, orders: Order[], added: string[], removed: string[]) {
  const current = await Promise.all(orders.map(async (o) => (await app.inject({ method: 'GET', url: `/v1/orders/${o.id}`, headers: shop.headers })).json().data.order as Order))
  const delivered = current.flatMap((o) => o.deliveredValues)
  t.equal(new Set(delivered).size, delivered.length, 'no value delivered twice')
  t.ok(delivered.every((v) => added.includes(v)), 'only added values delivered')
  t.notOk(delivered.some((v) => removed.includes(v)), 'no removed value delivered')
  t.ok(current.every((o) => (o.status === 'awaiting_confirmation' && o.deliveredValues.length === o.quantity) || (o.status === 'paid' && o.deliveredValues.length === 0)), 'each order fully delivered or waiting')
  const stock = (await stockCall(app, shop, productId, 'GET', '')).json().data.stock
  t.equal(stock.available + stock.delivered + stock.removed, added.length, 'available + delivered + removed = added')
  t.equal(stock.delivered, delivered.length, 'delivered count')
  t.equal(stock.removed, removed.length, 'removed count')
  const events = await allEvents(app, shop)
  for (const o of current) {
    const types = events.filter((e) => e.data.order?.id === o.id).map((e) => e.type)
    if (!t.same(types, o.status === 'paid' ? ['order.paid'] : ['order.paid', 'order.delivered'], `events of order ${o.id}`)) break
  }
  return current
}

t.test('purchases on two instances racing adds and removes', async (t) => {
  const key = stockKey()
  const a = await build(t, { VALUES_ENCRYPTION_KEY: key, DB_POOL_MAX: 8 })
  const b = await build(t, { VALUES_ENCRYPTION_KEY: key, DB_POOL_MAX: 8 })
  for (let round = 0; round < ROUNDS; round++) {
    const shop = await createShop(a, `race ${round}`)
    const product = await stockProduct(a, shop, { autoDelivery: 'stock' })
    const added: string[] = []
    const removed: string[] = []
    const add = async (app: App, count: number) => {
      const values = Array.from({ length: count }, (_, i) => `R${round}-${added.length + i}-${Math.random().toString(36).slice(2, 10)}`)
      const res = await stockCall(app, shop, product.id, 'POST', '/items', { values })
      t.equal(res.statusCode, 201)
      added.push(...values)
    }
    await add(a, 40)
    const orders: Order[] = []
    const buyers = Array.from({ length: PURCHASES }, (_, i) => purchase(i % 2 ? a : b, product, 1 + (i % 3)).then((o) => { orders.push(o) }))
    const seller = (async () => {
      for (let i = 0; i < 6; i++) {
        await add(i % 2 ? a : b, 8)
        const list = (await stockCall(b, shop, product.id, 'GET', '/items?status=available&limit=3')).json().data.items as Array<{ id: string }>
        if (list.length === 0) continue
        const res = await stockCall(a, shop, product.id, 'POST', '/items/remove', { ids: list.map((i) => i.id) })
        if (res.statusCode === 200) removed.push(...res.json().data.items.map((i: { value: string }) => i.value))
        else t.equal(res.json().error.code, 'STOCK_ITEM_UNAVAILABLE', 'a removal loses only to a delivery')
      }
    })()
    await Promise.all([...buyers, seller])
    t.ok(orders.reduce((n, o) => n + o.quantity, 0) > added.length, 'more asked for than added')
    const current = await check(t, a, shop, product.id, orders, added, removed)
    t.ok(current.some((o) => o.status === 'paid') && current.some((o) => o.status !== 'paid'), 'some delivered, some waiting')
  }
})

t.test('waiting orders filled by an upload racing new purchases', async (t) => {
  const key = stockKey()
  const a = await build(t, { VALUES_ENCRYPTION_KEY: key, DB_POOL_MAX: 8 })
  const b = await build(t, { VALUES_ENCRYPTION_KEY: key, DB_POOL_MAX: 8 })
  for (let round = 0; round < ROUNDS; round++) {
    const shop = await createShop(a, `fill ${round}`)
    const product = await stockProduct(a, shop, { autoDelivery: 'stock' })
    const orders: Order[] = []
    for (let i = 0; i < 20; i++) orders.push(await purchase(i % 2 ? a : b, product, 1 + (i % 3)))
    t.ok(orders.every((o) => o.status === 'paid'), 'all wait')
    const added = Array.from({ length: 30 }, (_, i) => `F${round}-${i}-${Math.random().toString(36).slice(2, 10)}`)
    const racing = Array.from({ length: 16 }, (_, i) => purchase(i % 2 ? a : b, product, 1 + (i % 3)).then((o) => { orders.push(o) }))
    const upload = stockCall(b, shop, product.id, 'POST', '/items', { values: added })
    await Promise.all([...racing, upload])
    const current = await check(t, a, shop, product.id, orders, added, [])
    const stock = (await stockCall(a, shop, product.id, 'GET', '')).json().data.stock
    // None skipped that could be filled: whatever waits asks for more than is left.
    const waiting = current.filter((o) => o.status === 'paid')
    t.ok(waiting.every((o) => o.quantity > stock.available), `no waiting order could still be filled (available ${stock.available})`)
  }
})
