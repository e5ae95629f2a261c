// The events feed (docs/events.md): which changes emit which event, with
// what payload; paging with nextCursor, the types filter, `latest`; shop
// isolation; bad input. Long polling: long-poll.test.ts; retention:
// retention.test.ts; concurrency: concurrency.test.ts.
import t from 'tap'
import { encodeEventCursor } from '../../domain/event-cursor.js'
import { page, feed, readAll, type FeedEvent } from '../fixtures/events.js'
import { act, buy, confirm, postAsBuyer } from '../fixtures/orders.js'
import { createProduct, productInput } from '../fixtures/products.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

const getOrder = async (app: App, shop: ShopFixture, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/orders/${id}`, headers: shop.headers })).json().data.order

const postAsSeller = (app: App, shop: ShopFixture, orderId: string, text: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/v1/orders/${orderId}/messages`, headers: { ...shop.headers, ...headers }, payload: { text } })

t.test('every kind, once, with the order as GET /v1/orders/{id} shows it right after', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const { cursor: start } = await readAll(app, shop)

  /** Runs `change`, then checks that exactly one event followed, of `type`, and returns it. */
  let cursor = start
  async function expectOne (type: string, change: () => Promise<unknown>): Promise<FeedEvent> {
    await change()
    const { events, cursor: next } = await readAll(app, shop, cursor)
    cursor = next
    t.equal(events.length, 1, `${type}: one event`)
    t.equal(events[0]?.type, type)
    return events[0]
  }

  const order = await buy(app, product)
  const paid = (await readAll(app, shop, cursor)).events
  t.equal(paid.length, 1)
  t.equal(paid[0].type, 'order.paid')
  t.same(paid[0].data, { order: await getOrder(app, shop, order.id) }, 'order.paid carries the order as GET shows it')
  cursor = (await readAll(app, shop, cursor)).cursor
  t.match(paid[0], { id: /^[0-9a-f-]{36}$/, createdAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ })

  const taken = await expectOne('order.taken', () => act(app, shop, order.id, 'take'))
  t.same(taken.data, { order: await getOrder(app, shop, order.id) })
  t.equal(taken.data.order.status, 'processing')

  const delivered = await expectOne('order.delivered', () => act(app, shop, order.id, 'deliver', { values: ['KEY-1', 'KEY-2'] }))
  t.same(delivered.data, { order: await getOrder(app, shop, order.id) })
  t.equal(delivered.data.order.deliveredValue, 'KEY-1\nKEY-2')

  const completed = await expectOne('order.completed', () => confirm(app, order.id))
  t.same(completed.data, { order: await getOrder(app, shop, order.id) })
  t.equal(completed.data.order.status, 'completed')

  const second = await buy(app, product)
  cursor = (await readAll(app, shop, cursor)).cursor
  const cancelled = await expectOne('order.cancelled', () => act(app, shop, second.id, 'cancel', { reason: 'out of stock' }))
  t.same(cancelled.data, { order: await getOrder(app, shop, second.id) })
  t.equal(cancelled.data.order.status, 'cancelled')

  let posted: any
  const sellerMessage = await expectOne('message.created', async () => { posted = (await postAsSeller(app, shop, second.id, ' Sorry! ')).json().data.message })
  t.same(sellerMessage.data, { orderId: second.id, message: posted })
  t.equal(sellerMessage.data.message.senderRole, 'seller')
  t.equal(sellerMessage.data.message.text, 'Sorry!')
  const buyerMessage = await expectOne('message.created', async () => { posted = (await postAsBuyer(app, second.id, 'Pity.')).json().data.message })
  t.same(buyerMessage.data, { orderId: second.id, message: posted })
  t.equal(buyerMessage.data.message.senderRole, 'buyer')

  const all = (await readAll(app, shop, start)).events
  t.same(all.map((e) => e.type), ['order.paid', 'order.taken', 'order.delivered', 'order.completed', 'order.paid', 'order.cancelled', 'message.created', 'message.created'])
  t.equal(new Set(all.map((e) => e.id)).size, all.length, 'ids are unique')
  t.same((await readAll(app, shop, start)).events, all, 'reading again gives the same events, ids and all')
})

t.test('nothing for refused transitions, replays, unknown orders, or products without automation', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const product = await createProduct(app, shop)
  const manual = await createProduct(app, shop, { external: false, title: 'Manual gift' })
  const order = await buy(app, product)
  await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'take-once' })
  const { cursor } = await readAll(app, shop)

  const refused = [
    await act(app, shop, order.id, 'take'),
    await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'take-twice' }),
    await confirm(app, order.id),
    await act(app, other, order.id, 'deliver', {})
  ]
  t.same(refused.map((r) => r.statusCode), [409, 409, 409, 404])
  const replay = await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'take-once' })
  t.equal(replay.headers['idempotency-replayed'], 'true', 'a replay of the first take')
  t.equal((await postAsSeller(app, shop, order.id, 'hi', { 'idempotency-key': 'm1' })).statusCode, 201)
  t.equal((await postAsSeller(app, shop, order.id, 'hi', { 'idempotency-key': 'm1' })).headers['idempotency-replayed'], 'true')
  t.equal((await postAsSeller(app, shop, order.id, ' ')).statusCode, 400, 'a refused message')

  const manualOrder = await buy(app, manual)
  t.equal((await postAsBuyer(app, manualOrder.id, 'hello?')).statusCode, 201)
  t.equal((await act(app, shop, manualOrder.id, 'cancel')).statusCode, 404, 'not visible through /v1')

  const { events } = await readAll(app, shop, cursor)
  t.same(events.map((e) => e.type), ['message.created'], 'only the first post of m1')
  t.same((await readAll(app, other)).events, [], 'the other shop saw nothing')
})

t.test('automation decides when the event happens', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  const { cursor } = await readAll(app, shop)
  const put = (external: boolean) => app.inject({ method: 'PUT', url: `/v1/products/${product.id}`, headers: shop.headers, payload: productInput(product.categoryId, { external }) })

  t.equal((await put(false)).statusCode, 200)
  t.equal((await postAsBuyer(app, order.id, 'while manual')).statusCode, 201)
  t.same((await readAll(app, shop, cursor)).events, [], 'no event while the product has no automation')
  t.equal((await put(true)).statusCode, 200)
  t.equal((await postAsBuyer(app, order.id, 'automated again')).statusCode, 201)
  const { events } = await readAll(app, shop, cursor)
  t.same(events.map((e) => e.data.message.text), ['automated again'])
})

t.test('paging, the types filter and latest', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const empty = await page(app, shop)
  t.same(empty.events, [], 'a shop without events')
  t.equal(typeof empty.nextCursor, 'string', 'nextCursor is never null')
  t.same(await page(app, shop, 'after=latest'), empty, 'latest of a shop without events is the start')

  const orders = []
  for (let i = 0; i < 3; i++) {
    const order = await buy(app, product)
    await postAsBuyer(app, order.id, `message ${i}`)
    orders.push(order)
  }
  await act(app, shop, orders[0].id, 'take')
  // Feed: paid, message, paid, message, paid, message, taken.

  const first = await page(app, shop, 'limit=2')
  t.same(first.events.map((e) => e.type), ['order.paid', 'message.created'])
  const second = await page(app, shop, `limit=2&after=${first.nextCursor}`)
  t.same(second.events.map((e) => e.type), ['order.paid', 'message.created'])
  t.equal(second.events[0].data.order.id, orders[1].id)
  const rest = await page(app, shop, `after=${second.nextCursor}`)
  t.same(rest.events.map((e) => e.type), ['order.paid', 'message.created', 'order.taken'])
  const none = await page(app, shop, `after=${rest.nextCursor}`)
  t.same(none, { events: [], nextCursor: rest.nextCursor }, 'nothing new: the cursor asked for')
  t.same(await page(app, shop, 'after=latest'), none, 'latest is after the newest event')

  const paid = await page(app, shop, 'types=order.paid&limit=2')
  t.same(paid.events.map((e) => e.data.order.id), [orders[0].id, orders[1].id])
  const paidRest = await page(app, shop, `types=order.paid&after=${paid.nextCursor}`)
  t.same(paidRest.events.map((e) => e.data.order.id), [orders[2].id])
  t.equal(paidRest.nextCursor, rest.nextCursor, 'skipped kinds move the cursor to the end')
  const taken = await page(app, shop, 'types=order.taken,order.cancelled')
  t.same(taken.events.map((e) => e.type), ['order.taken'])
  const chat = await page(app, shop, `types=message.created,message.created&after=${first.nextCursor}`)
  t.same(chat.events.map((e) => e.data.message.text), ['message 1', 'message 2'], 'a kind named twice counts once')
  const nothing = await page(app, shop, 'types=order.completed')
  t.same(nothing, { events: [], nextCursor: rest.nextCursor }, 'no matching kind: the cursor still moves past everything examined')
})

t.test('the types filter examines a bounded stretch and moves the cursor past it', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  // 1 100 chat events, then one order event.
  await Promise.all(Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; i < 275; i++) await postAsBuyer(app, order.id, `m${w}.${i}`)
  }))
  await act(app, shop, order.id, 'take')
  const start = await page(app, shop, 'types=order.taken')
  t.same(start.events, [], 'the first 1 000 positions hold no order.taken')
  const next = await page(app, shop, `types=order.taken&after=${start.nextCursor}`)
  t.same(next.events.map((e) => e.type), ['order.taken'], 'the next read finds it')
  const { events } = await readAll(app, shop)
  t.equal(events.length, 1102)
})

t.test('shop isolation', async (t) => {
  const app = await build(t)
  const a = await createShop(app, 'A')
  const b = await createShop(app, 'B')
  const productA = await createProduct(app, a)
  const productB = await createProduct(app, b)
  const orderA = await buy(app, productA)
  await buy(app, productB)
  await buy(app, productB)
  const feedA = await readAll(app, a)
  const feedB = await readAll(app, b)
  t.same(feedA.events.map((e) => e.data.order.id), [orderA.id])
  t.equal(feedB.events.length, 2)
  t.ok(feedB.events.every((e) => e.data.order.productId === productB.id))

  const foreign = await feed(app, a, `after=${feedB.cursor}`)
  t.equal(foreign.statusCode, 400, 'another shop\'s cursor is refused')
  t.equal(foreign.json().error.code, 'VALIDATION_ERROR')
})

t.test('bad input is 400 and names the parameter', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  await buy(app, product)
  const { cursor } = await readAll(app, shop)
  const bad: Array<[string, string]> = [
    ['after=', 'after'],
    ['after=garbage', 'after'],
    ['after=v1_1_00000000', 'after'],
    [`after=${cursor}x`, 'after'],
    [`after=${cursor.replace(/^v1/, 'v2')}`, 'after'],
    [`after=${encodeEventCursor(shop.shopId, 2)}`, 'after'],
    [`after=${'v'.repeat(65)}`, 'after'],
    ['after=LATEST', 'after'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1.5', 'limit'],
    ['wait=-1', 'wait'],
    ['wait=31', 'wait'],
    ['wait=soon', 'wait'],
    ['wait=0.5', 'wait'],
    ['types=order.shipped', 'types'],
    ['types=order.paid,', 'types'],
    ['types=ORDER.PAID', 'types'],
    ['types=orderXpaid', 'types'],
    ['types=', 'types']
  ]
  for (const [query, parameter] of bad) {
    const res = await feed(app, shop, query)
    t.equal(res.statusCode, 400, `${query}: ${res.body}`)
    const error = res.json().error
    t.equal(error.code, 'VALIDATION_ERROR', query)
    t.ok(error.details.some((d: { path: string }) => d.path === `querystring.${parameter}`), `${query} names ${parameter}`)
  }
  const ahead = await feed(app, shop, `after=${encodeEventCursor(shop.shopId, 2)}`)
  t.match(ahead.json().error.message, /ahead/)
  t.equal((await feed(app, shop, `after=${cursor}&limit=100&wait=0&types=order.paid`)).statusCode, 200, 'the bounds themselves are fine')
  const unauthenticated = await app.inject({ method: 'GET', url: '/v1/events' })
  t.equal(unauthenticated.statusCode, 401)
})
