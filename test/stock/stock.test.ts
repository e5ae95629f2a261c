// Stock (docs/stock.md) through HTTP: settings, add, list, remove, each refusal
// changing nothing, and instant delivery with its events.
import t from 'tap'
import { act, buy } from '../fixtures/orders.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

async function feed (app: App, shop: ShopFixture) {
  const res = await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })
  return res.json().data.events as Array<{ type: string, data: any }>
}

t.test('a new product has an empty stock with the defaults', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, {})
  const res = await stockCall(app, shop, product.id, 'GET', '')
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json().data.stock, { productId: product.id, autoDelivery: 'off', optionFieldId: null, lowStockThreshold: 0, deactivateWhenEmpty: false, deactivatedByStock: false, available: 0, delivered: 0, removed: 0, options: [] })
  const other = await createShop(app, 'Other')
  t.equal((await stockCall(app, other, product.id, 'GET', '')).statusCode, 404, 'another shop\'s product')
})

t.test('purchase delivered from stock in its own transaction, with its events', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock', lowStockThreshold: 2 })
  const added = await addValues(app, shop, product.id, ['  CODE-AAAA-1111  ', 'CODE-BBBB-2222', 'CODE-CCCC-3333', 'CODE-BBBB-2222', 'short'])
  t.match(added, { added: 4, duplicates: 1, filledOrders: 0, stock: { available: 4 } })

  const order = await buy(app, product, { quantity: 2 })
  t.match(order, { status: 'awaiting_confirmation', assigneeType: 'auto', deliveredValues: ['CODE-AAAA-1111', 'CODE-BBBB-2222'], deliveredValue: 'CODE-AAAA-1111\nCODE-BBBB-2222' })
  t.equal(order.takenAt, order.deliveredAt)
  t.equal(order.createdAt, order.deliveredAt)

  const events = await feed(app, shop)
  t.same(events.map((e) => e.type), ['order.paid', 'order.delivered', 'stock.low'])
  t.match(events[0].data.order, { id: order.id, status: 'paid', takenAt: null, deliveredAt: null, deliveredValues: [], deliveredValue: null })
  t.same(events[1].data.order, order)
  t.same(events[2].data, { productId: product.id, optionId: null, available: 2, lowStockThreshold: 2 })

  // Not enough: nothing taken, the order waits; then an upload fills it.
  const waiting = await buy(app, product, { quantity: 3 })
  t.equal(waiting.status, 'paid')
  const stock = (await stockCall(app, shop, product.id, 'GET', '')).json().data.stock
  t.match(stock, { available: 2, delivered: 2, removed: 0 })
  const filled = await addValues(app, shop, product.id, ['CODE-DDDD-4444'])
  t.match(filled, { added: 1, filledOrders: 1, stock: { available: 0, delivered: 5 } })
  const got = (await app.inject({ method: 'GET', url: `/v1/orders/${waiting.id}`, headers: shop.headers })).json().data.order
  t.same(got.deliveredValues, ['CODE-CCCC-3333', 'short', 'CODE-DDDD-4444'])
  t.same((await feed(app, shop)).slice(3).map((e) => e.type), ['order.paid', 'order.delivered', 'stock.low', 'stock.empty'], 'the upload re-armed stock.low: 3 items, then 0')

  // A delivered value cannot come back while delivered; a cancel with restock returns it.
  t.match(await addValues(app, shop, product.id, ['short']), { added: 0, duplicates: 1 })
  await addValues(app, shop, product.id, ['CODE-EEEE-5555'])
  const kept = await buy(app, product)
  t.same(kept.deliveredValues, ['CODE-EEEE-5555'])
  t.equal((await act(app, shop, kept.id, 'cancel', {})).statusCode, 200)
  t.match((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock, { available: 0, delivered: 6 }, 'without restock the items stay delivered')
  const cancelled = await act(app, shop, waiting.id, 'cancel', { restock: true })
  t.equal(cancelled.statusCode, 200, cancelled.body)
  t.match((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock, { available: 3, delivered: 3 })
  const again = await buy(app, product, { quantity: 3 })
  t.same(again.deliveredValues, ['CODE-CCCC-3333', 'short', 'CODE-DDDD-4444'], 'restocked items delivered again, oldest first')
})

t.test('every quantity takes exactly its items, oldest first, past delivered and removed ones', async (t) => {
  // Quantities 1–4 take with a literal LIMIT, larger ones with a parameter (db/stock/take.ts): both ways, in the purchase and in the fill.
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  const values = Array.from({ length: 30 }, (_, i) => `QTY-${String(i).padStart(2, '0')}-CODE`)
  await addValues(app, shop, product.id, values.slice(0, 20))
  const list = (await stockCall(app, shop, product.id, 'GET', '/items?limit=2')).json().data.items
  const removed = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: list.map((i: any) => i.id) })
  t.equal(removed.statusCode, 200, removed.body)
  const gone = new Set(removed.json().data.items.map((i: any) => i.value))
  const left = values.slice(0, 20).filter((v) => !gone.has(v))
  t.equal(left.length, 18)
  let next = 0
  for (const quantity of [1, 4, 5, 7]) {
    const order = await buy(app, product, { quantity })
    t.same(order.deliveredValues, left.slice(next, next + quantity), `quantity ${quantity}`)
    next += quantity
  }
  const waiting = await buy(app, product, { quantity: 6 })
  t.equal(waiting.status, 'paid', '1 item left of 18, the order of 6 waits')
  t.match(await addValues(app, shop, product.id, values.slice(20, 25)), { added: 5, filledOrders: 1, stock: { available: 0 } })
  const filled = (await app.inject({ method: 'GET', url: `/v1/orders/${waiting.id}`, headers: shop.headers })).json().data.order
  t.same(filled.deliveredValues, [left[17], ...values.slice(20, 25)], 'the oldest available first, skipping the removed ones')
})

t.test('listing shows previews only, newest first, with a cursor; remove returns values', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  await addValues(app, shop, product.id, ['ABCDEFGHIJ', 'tiny', '12345678', 'ÄÖÜßabcdefgh'])
  const first = (await stockCall(app, shop, product.id, 'GET', '/items?limit=3')).json().data
  t.same(first.items.map((i: any) => i.preview), ['ÄÖÜß…', '…', '…'])
  t.type(first.nextCursor, 'string')
  const second = (await stockCall(app, shop, product.id, 'GET', `/items?limit=3&after=${first.nextCursor}`)).json().data
  t.same(second.items.map((i: any) => i.preview), ['ABCD…'])
  t.equal(second.nextCursor, null)
  t.equal((await stockCall(app, shop, product.id, 'GET', '/items?after=nope')).statusCode, 400)

  const ids = [second.items[0].id, first.items[1].id]
  const removed = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids })
  t.equal(removed.statusCode, 200, removed.body)
  t.same(removed.json().data.items.map((i: any) => [i.value, i.status]), [['ABCDEFGHIJ', 'removed'], ['12345678', 'removed']])
  const removedList = (await stockCall(app, shop, product.id, 'GET', '/items?status=removed')).json().data.items
  t.equal(removedList.length, 2)

  // Refusals change nothing.
  const before = (await stockCall(app, shop, product.id, 'GET', '')).json().data.stock
  const available = (await stockCall(app, shop, product.id, 'GET', '/items?status=available')).json().data.items
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [available[0].id, ids[0]] })).json().error.code, 'STOCK_ITEM_UNAVAILABLE')
  const notFound = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [available[0].id, ids[0], 'not-an-id'] })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.json().error.code, 'NOT_FOUND', '404 wins over 409')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [available[0].id, available[0].id] })).statusCode, 400, 'repeated id')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [available[0].id], extra: 1 })).statusCode, 400, 'unknown property')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: ['a\u0000b'] })).statusCode, 400, 'NUL')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: ['   '] })).statusCode, 400, 'blank')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: ['x'.repeat(10_001)] })).statusCode, 400, 'too long')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: [] })).statusCode, 400, 'none')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: ['ok-value'], optionId: product.id })).statusCode, 400, 'optionId without optionFieldId')
  t.equal((await stockCall(app, shop, product.id, 'PATCH', '', { lowStockThreshold: 1_000_001 })).statusCode, 400)
  t.equal((await stockCall(app, shop, product.id, 'PATCH', '', { autoDelivery: 'always' })).statusCode, 400)
  t.equal((await stockCall(app, shop, product.id, 'PATCH', '', { optionFieldId: product.fields[0].id })).statusCode, 400, 'a text field')
  const big = await stockCall(app, shop, product.id, 'POST', '/items', { values: Array.from({ length: 9000 }, (_, i) => `${i}`.padEnd(1000, 'x')) })
  t.equal(big.statusCode, 413, 'over 8 MiB')
  t.same((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock, before)
})

t.test('variants: items of the chosen option only; the option field is protected', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, {}, {
    fields: [{ type: 'select', label: 'Region', required: true, multiple: false, options: [{ label: 'EU', price: 0 }, { label: 'US', price: 0 }] }]
  })
  const field = product.fields[0]
  const [eu, us] = field.options.map((o: any) => o.id)
  const set = await stockCall(app, shop, product.id, 'PATCH', '', { optionFieldId: field.id, autoDelivery: 'stock' })
  t.equal(set.statusCode, 200, set.body)
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: ['EU-CODE-0001'] })).statusCode, 400, 'optionId required')
  await addValues(app, shop, product.id, ['EU-CODE-0001', 'EU-CODE-0002'], eu)
  const stock = (await stockCall(app, shop, product.id, 'GET', '')).json().data.stock
  t.same(stock.options, [{ optionId: eu, label: 'EU', available: 2 }, { optionId: us, label: 'US', available: 0 }])
  t.equal((await stockCall(app, shop, product.id, 'PATCH', '', { optionFieldId: null })).json().error.code, 'STOCK_NOT_EMPTY')

  const usOrder = await buy(app, product, { fieldValues: [{ fieldId: field.id, value: us }] })
  t.equal(usOrder.status, 'paid', 'no US items')
  const euOrder = await buy(app, product, { fieldValues: [{ fieldId: field.id, value: eu }] })
  t.same(euOrder.deliveredValues, ['EU-CODE-0001'])
  t.match(await addValues(app, shop, product.id, ['US-CODE-0001'], us), { filledOrders: 1 })

  const put = (fields: unknown[]) => app.inject({ method: 'PUT', url: `/v1/products/${product.id}`, headers: shop.headers, payload: { ...productBody(product), fields } })
  const removeField = await put([])
  t.equal(removeField.statusCode, 400)
  t.match(removeField.json().error.message, field.id)
  t.equal((await put([{ ...field, required: false }])).statusCode, 400, 'made optional')
  t.equal((await put([{ ...field, options: [field.options[1]] }])).statusCode, 400, 'drops EU, which holds an item')
  t.equal((await put([{ ...field, options: [field.options[0]] }])).statusCode, 200, 'drops US, which holds none')
})

t.test('deactivate when empty, reactivate on restock; any PUT clears the flag', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock', deactivateWhenEmpty: true })
  await addValues(app, shop, product.id, ['ONLY-ONE-CODE'])
  await buy(app, product)
  const emptied = (await app.inject({ method: 'GET', url: `/v1/products/${product.id}`, headers: shop.headers })).json().data.product
  t.equal(emptied.active, false)
  t.equal((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock.deactivatedByStock, true)
  await addValues(app, shop, product.id, ['ANOTHER-CODE-1'])
  t.equal((await app.inject({ method: 'GET', url: `/v1/products/${product.id}`, headers: shop.headers })).json().data.product.active, true)
  t.equal((await stockCall(app, shop, product.id, 'GET', '')).json().data.stock.deactivatedByStock, false)
})

t.test('without a key on Postgres: adding and removing answer 503 naming the variable; the rest works', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  const res = await stockCall(app, shop, product.id, 'POST', '/items', { values: ['CODE-1'] })
  t.equal(res.statusCode, 503)
  t.match(res.json().error.message, 'VALUES_ENCRYPTION_KEY')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [product.id] })).statusCode, 503)
  t.equal((await stockCall(app, shop, product.id, 'GET', '/items')).statusCode, 200)
  t.equal((await buy(app, product)).status, 'paid', 'the purchase is recorded paid and waits')
})

function productBody (product: any) {
  return {
    categoryId: product.categoryId,
    title: product.title,
    description: product.description,
    isActive: product.active,
    external: product.external,
    currencyRateId: product.currencyRateId,
    price: product.price,
    imageId: product.imageId,
    employeeReward: product.employeeReward,
    filters: product.filters
  }
}
