import t from 'tap'
import { createProduct, productInput } from '../fixtures/products.js'
import { act, buy, confirm, ISO_MS, ledger, orderIn, type Status } from '../fixtures/orders.js'
import { build, createShop } from '../helper.js'

const allStatuses: Status[] = ['paid', 'processing', 'awaiting_confirmation', 'completed', 'cancelled']

t.test('an order before and after each event', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)

  const got = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })
  t.equal(got.statusCode, 200, got.body)
  const fresh = got.json().data.order
  t.match(fresh, {
    id: order.id,
    status: 'paid',
    productId: product.id,
    productTitle: product.title,
    quantity: 1,
    amount: 499.9,
    assigneeType: 'user',
    takenAt: null,
    deliveredAt: null,
    deliveredValue: null
  })
  t.same(fresh.deliveredValues, [])
  t.match(fresh.createdAt, ISO_MS)
  t.same(fresh.fieldValues, [{ fieldId: product.fields[0].id, label: 'Email for delivery', value: 'buyer@example.com' }])

  const taken = await act(app, shop, order.id, 'take')
  t.equal(taken.statusCode, 200, taken.body)
  const takenOrder = taken.json().data.order
  t.equal(takenOrder.status, 'processing')
  t.equal(takenOrder.assigneeType, 'api')
  t.match(takenOrder.takenAt, ISO_MS)
  t.ok(takenOrder.takenAt >= fresh.createdAt)
  t.equal(takenOrder.deliveredAt, null)

  const delivered = await act(app, shop, order.id, 'deliver', { value: 'KEY-1234' })
  t.equal(delivered.statusCode, 200, delivered.body)
  const deliveredOrder = delivered.json().data.order
  t.equal(deliveredOrder.status, 'awaiting_confirmation')
  t.match(deliveredOrder.deliveredAt, ISO_MS)
  t.ok(deliveredOrder.deliveredAt >= takenOrder.takenAt)
  t.equal(deliveredOrder.takenAt, takenOrder.takenAt, 'takenAt is kept')
  t.equal(deliveredOrder.deliveredValue, 'KEY-1234')
  t.same(deliveredOrder.deliveredValues, ['KEY-1234'])

  const reread = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })
  t.same(reread.json().data.order, deliveredOrder, 'GET shows what the transition returned')
  t.same((await ledger(app, shop.shopId)).entries, [], 'no money moves until the buyer confirms')
})

t.test('every transition from every status (docs/api-rules.md, orders)', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const allowed: Record<'take' | 'deliver' | 'cancel', Record<Status, Status | null>> = {
    take: { paid: 'processing', processing: null, awaiting_confirmation: null, completed: null, cancelled: null },
    deliver: { paid: null, processing: 'awaiting_confirmation', awaiting_confirmation: null, completed: null, cancelled: null },
    cancel: { paid: 'cancelled', processing: 'cancelled', awaiting_confirmation: 'cancelled', completed: null, cancelled: null }
  }
  for (const action of ['take', 'deliver', 'cancel'] as const) {
    for (const from of allStatuses) {
      const order = await orderIn(app, shop, product, from)
      const before = await ledger(app, shop.shopId)
      const res = await act(app, shop, order.id, action)
      const to = allowed[action][from]
      const after = await ledger(app, shop.shopId)
      const newEntries = after.entries.filter((e) => !before.entries.some((b) => b.id === e.id))
      if (to === null) {
        t.equal(res.statusCode, 409, `${action} from ${from} is refused`)
        t.equal(res.json().error.code, 'ORDER_INVALID_STATUS')
        t.match(res.json().error.message, from)
        const unchanged = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })
        t.equal(unchanged.json().data.order.status, from, 'the status stays')
        t.same(newEntries, [], 'no money moves')
      } else {
        t.equal(res.statusCode, 200, `${action} from ${from}: ${res.body}`)
        t.equal(res.json().data.order.status, to)
        if (action === 'cancel') {
          t.same(newEntries.map((e) => [e.orderId, e.kind, e.amount]), [[order.id, 'refund', order.amount]], 'cancel refunds the full amount')
        } else {
          t.same(newEntries, [], `${action} moves no money`)
        }
      }
    }
  }
  t.equal((await ledger(app, shop.shopId)).balance, 1499.7, 'only the three completed orders credited the shop')
})

t.test('deliver attaches the issued values', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const cases: Array<{ name: string, payload: unknown, values: string[], value: string | null }> = [
    { name: 'no body', payload: undefined, values: [], value: null },
    { name: 'empty object', payload: {}, values: [], value: null },
    { name: 'value', payload: { value: 'CODE-1' }, values: ['CODE-1'], value: 'CODE-1' },
    { name: 'values', payload: { values: ['A', 'B', 'C'] }, values: ['A', 'B', 'C'], value: 'A\nB\nC' },
    { name: 'values win over value', payload: { value: 'X', values: ['Y'] }, values: ['Y'], value: 'Y' },
    { name: 'empty values', payload: { values: [] }, values: [], value: null },
    { name: 'unicode kept', payload: { value: 'ключ 🔑' }, values: ['ключ 🔑'], value: 'ключ 🔑' },
    { name: '10 000 characters', payload: { value: 'v'.repeat(10_000) }, values: ['v'.repeat(10_000)], value: 'v'.repeat(10_000) },
    { name: '100 values', payload: { values: Array.from({ length: 100 }, (_, i) => `k${i}`) }, values: Array.from({ length: 100 }, (_, i) => `k${i}`), value: Array.from({ length: 100 }, (_, i) => `k${i}`).join('\n') }
  ]
  for (const c of cases) {
    const order = await orderIn(app, shop, product, 'processing')
    const res = await act(app, shop, order.id, 'deliver', c.payload)
    t.equal(res.statusCode, 200, c.name)
    t.same(res.json().data.order.deliveredValues, c.values, c.name)
    t.equal(res.json().data.order.deliveredValue, c.value, c.name)
  }

  const bad: Array<{ name: string, payload: unknown }> = [
    { name: 'value over 10 000 characters', payload: { value: 'v'.repeat(10_001) } },
    { name: 'a value in values over 10 000', payload: { values: ['ok', 'v'.repeat(10_001)] } },
    { name: '101 values', payload: { values: Array.from({ length: 101 }, (_, i) => `k${i}`) } },
    { name: 'value not a string', payload: { value: 42 } },
    { name: 'values not an array', payload: { values: 'A' } },
    { name: 'NUL', payload: { value: 'a\u0000b' } }
  ]
  const order = await orderIn(app, shop, product, 'processing')
  for (const c of bad) {
    const res = await act(app, shop, order.id, 'deliver', c.payload)
    t.equal(res.statusCode, 400, c.name)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', c.name)
  }
  const still = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })
  t.equal(still.json().data.order.status, 'processing', 'a refused body changes nothing')
})

t.test('cancel body', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  for (const payload of [undefined, {}, { reason: 'out of stock' }, { reason: 'r'.repeat(1000) }]) {
    const order = await orderIn(app, shop, product, 'paid')
    const res = await act(app, shop, order.id, 'cancel', payload)
    t.equal(res.statusCode, 200, `${JSON.stringify(payload)?.slice(0, 40)}: ${res.body}`)
    t.equal(res.json().data.order.status, 'cancelled')
  }
  const order = await orderIn(app, shop, product, 'paid')
  const long = await act(app, shop, order.id, 'cancel', { reason: 'r'.repeat(1001) })
  t.equal(long.statusCode, 400)
  t.equal(long.json().error.code, 'VALIDATION_ERROR')
  t.equal((await ledger(app, shop.shopId)).entries.length, 4, 'the refused cancel refunded nothing')
})

t.test('list: default filter, ordering, status lists, productId, paging', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const other = await createProduct(app, shop, { title: 'Other product' })
  const paid: string[] = []
  for (let i = 0; i < 5; i++) paid.push((await buy(app, i % 2 === 0 ? product : other)).id)
  const processing = (await orderIn(app, shop, product, 'processing')).id
  const awaiting = (await orderIn(app, shop, product, 'awaiting_confirmation')).id
  const cancelled = (await orderIn(app, shop, other, 'cancelled')).id
  const completed = (await orderIn(app, shop, product, 'completed')).id

  const list = async (query: string) => {
    const res = await app.inject({ method: 'GET', url: `/v1/orders${query}`, headers: shop.headers })
    t.equal(res.statusCode, 200, `${query}: ${res.body}`)
    return res.json().data as { orders: Array<{ id: string, status: string, createdAt: string }>, total: number, page: number, limit: number }
  }

  const byDefault = await list('')
  t.same(byDefault.orders.map((o) => o.id), paid, 'without status: the paid orders, oldest first')
  t.match(byDefault, { total: 5, page: 1, limit: 20 })
  const times = byDefault.orders.map((o) => o.createdAt)
  t.same(times, [...times].sort(), 'ascending createdAt')

  t.same((await list('?sort=desc')).orders.map((o) => o.id), [...paid].reverse(), 'sort=desc: newest first')
  t.same((await list('?sort=asc')).orders.map((o) => o.id), paid)
  t.same((await list('?status=processing')).orders.map((o) => o.id), [processing])
  t.same((await list('?status=completed')).orders.map((o) => o.id), [completed])
  t.same((await list('?status=cancelled')).orders.map((o) => o.id), [cancelled])
  const several = await list('?status=processing,awaiting_confirmation')
  t.same(several.orders.map((o) => o.id), [processing, awaiting])
  t.equal(several.total, 2)
  t.equal((await list('?status=paid,processing,awaiting_confirmation,completed,cancelled')).total, 9)
  t.equal((await list('?status=paid,paid')).total, 5, 'a repeated status counts once')

  const ofProduct = await list(`?productId=${other.id}`)
  t.same(ofProduct.orders.map((o) => o.id), [paid[1], paid[3]], 'productId filter')
  t.equal(ofProduct.total, 2)
  t.equal((await list(`?productId=${other.id}&status=cancelled`)).orders[0].id, cancelled)
  t.same(await list('?productId=00000000-0000-4000-8000-000000000000'), { orders: [], total: 0, page: 1, limit: 20 })

  const page1 = await list('?limit=2')
  const page2 = await list('?limit=2&page=2')
  const page3 = await list('?limit=2&page=3')
  t.same([...page1.orders, ...page2.orders, ...page3.orders].map((o) => o.id), paid, 'pages cover the list once')
  t.match(page2, { total: 5, page: 2, limit: 2 })
  t.same(await list('?limit=2&page=4'), { orders: [], total: 5, page: 4, limit: 2 }, 'past the end: empty page, total still counted')
  t.same((await list('?limit=2&page=2&sort=desc')).orders.map((o) => o.id), [paid[2], paid[1]])
  t.equal((await list('?limit=100')).orders.length, 5)

  for (const query of ['?status=new', '?status=paid,', '?status=PAID', '?status=', '?page=0', '?limit=0', '?limit=101', '?sort=up', '?productId=nope', '?page=x']) {
    const res = await app.inject({ method: 'GET', url: `/v1/orders${query}`, headers: shop.headers })
    t.equal(res.statusCode, 400, `${query} is refused`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
})

t.test('orders of products without automation are invisible', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const manual = await createProduct(app, shop, { external: false, title: 'Manual' })
  const automated = await createProduct(app, shop)
  const hidden = await buy(app, manual)
  const visible = await buy(app, automated)

  const list = await app.inject({ method: 'GET', url: '/v1/orders?status=paid,processing,awaiting_confirmation,completed,cancelled', headers: shop.headers })
  t.same(list.json().data.orders.map((o: { id: string }) => o.id), [visible.id])
  t.equal(list.json().data.total, 1)
  const byProduct = await app.inject({ method: 'GET', url: `/v1/orders?productId=${manual.id}`, headers: shop.headers })
  t.equal(byProduct.json().data.total, 0)

  for (const [method, path] of [['GET', ''], ['POST', '/take'], ['POST', '/deliver'], ['POST', '/cancel'], ['GET', '/messages'], ['POST', '/messages']] as const) {
    const res = await app.inject({ method, url: `/v1/orders/${hidden.id}${path}`, headers: shop.headers, ...(method === 'POST' ? { payload: { text: 'hi' } } : {}) })
    t.equal(res.statusCode, 404, `${method} ${path || '/'}`)
    t.equal(res.json().error.code, 'ORDER_NOT_FOUND')
  }

  // Turning automation off later hides the existing orders too.
  const input = productInput(automated.categoryId, { external: false })
  const put = await app.inject({ method: 'PUT', url: `/v1/products/${automated.id}`, headers: shop.headers, payload: input })
  t.equal(put.statusCode, 200, put.body)
  const gone = await app.inject({ method: 'GET', url: `/v1/orders/${visible.id}`, headers: shop.headers })
  t.equal(gone.statusCode, 404)
  const take = await act(app, shop, visible.id, 'take')
  t.equal(take.statusCode, 404)
  const emptied = await app.inject({ method: 'GET', url: '/v1/orders', headers: shop.headers })
  t.same(emptied.json().data, { orders: [], total: 0, page: 1, limit: 20 }, 'gone from the list and its total')
  t.equal((await app.inject({ method: 'GET', url: `/v1/orders/${visible.id}/messages`, headers: shop.headers })).statusCode, 404)

  // And on again: the orders come back, with orders bought meanwhile.
  const later = await buy(app, put.json().data.product)
  const back = await app.inject({ method: 'PUT', url: `/v1/products/${automated.id}`, headers: shop.headers, payload: productInput(automated.categoryId, { external: true, fields: put.json().data.product.fields }) })
  t.equal(back.statusCode, 200, back.body)
  const restored = await app.inject({ method: 'GET', url: '/v1/orders', headers: shop.headers })
  t.same(restored.json().data.orders.map((o: { id: string }) => o.id), [visible.id, later.id])
  t.equal(restored.json().data.total, 2)
  t.equal((await app.inject({ method: 'GET', url: `/v1/orders/${later.id}/messages`, headers: shop.headers })).statusCode, 200)
  t.equal((await act(app, shop, later.id, 'take')).statusCode, 200)
})

t.test('another shop\'s order is not found; malformed ids are not found', async (t) => {
  const app = await build(t)
  const owner = await createShop(app, 'Owner')
  const stranger = await createShop(app, 'Stranger')
  const product = await createProduct(app, owner)
  const order = await orderIn(app, owner, product, 'processing')

  const list = await app.inject({ method: 'GET', url: '/v1/orders?status=processing', headers: stranger.headers })
  t.same(list.json().data, { orders: [], total: 0, page: 1, limit: 20 })
  for (const [method, path, payload] of [['GET', '', undefined], ['POST', '/take', undefined], ['POST', '/deliver', { value: 'x' }], ['POST', '/cancel', {}], ['GET', '/messages', undefined], ['POST', '/messages', { text: 'hi' }]] as const) {
    const res = await app.inject({ method, url: `/v1/orders/${order.id}${path}`, headers: stranger.headers, ...(payload ? { payload } : {}) })
    t.equal(res.statusCode, 404, `stranger ${method} ${path || '/'}`)
    t.equal(res.json().error.code, 'ORDER_NOT_FOUND')
  }
  const still = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: owner.headers })
  t.equal(still.json().data.order.status, 'processing', 'the stranger changed nothing')
  t.same((await ledger(app, owner.shopId)).entries, [])

  for (const id of ['nope', '123', '00000000-0000-4000-8000-00000000000', `${order.id}x`, '%27%20or%201=1']) {
    for (const [method, path] of [['GET', ''], ['POST', '/take'], ['POST', '/cancel'], ['GET', '/messages']] as const) {
      const res = await app.inject({ method, url: `/v1/orders/${id}${path}`, headers: owner.headers })
      t.equal(res.statusCode, 404, `${method} ${id}${path}`)
      t.equal(res.json().error.code, 'ORDER_NOT_FOUND')
    }
  }
  const unknown = await act(app, owner, '00000000-0000-4000-8000-000000000000', 'take')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'ORDER_NOT_FOUND')
})

t.test('every order route needs the key', async (t) => {
  const app = await build(t)
  for (const [method, url] of [['GET', '/v1/orders'], ['GET', '/v1/orders/00000000-0000-4000-8000-000000000000'], ['POST', '/v1/orders/00000000-0000-4000-8000-000000000000/take']] as const) {
    const res = await app.inject({ method, url })
    t.equal(res.statusCode, 401, url)
    t.equal(res.json().error.code, 'API_KEY_INVALID')
  }
})

t.test('confirm after delivery credits the shop; the order is then final', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  const res = await confirm(app, order.id)
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().data.order.status, 'completed')
  const { entries, balance } = await ledger(app, shop.shopId)
  t.same(entries.map((e) => [e.orderId, e.kind, e.amount]), [[order.id, 'credit', 499.9]])
  t.equal(balance, 499.9)
  const cancel = await act(app, shop, order.id, 'cancel')
  t.equal(cancel.statusCode, 409, 'a completed order is never refunded')
  t.equal((await ledger(app, shop.shopId)).entries.length, 1)
})
