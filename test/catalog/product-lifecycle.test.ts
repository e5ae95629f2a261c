// Products after they are made: priceRub and its rounding, archiving, the lists
// (full and reduced, paged and filtered), PUT, other shops' products, keys and
// Idempotency-Key.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build, categoryWithFilter, createShop, setRate } from '../helper.js'
import { anyCategoryId, createProduct, productInput } from '../fixtures/products.js'
import { archive, assertInvalid, assertNotFound, get, post, put, textField } from '../fixtures/product-requests.js'

t.test('priceRub is exact to the kopeck and follows the current rate', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const rateId = await setRate(app, shop.shopId, 'USD', 92.5134)
  const product = await createProduct(app, shop, { currencyRateId: rateId, price: 9.99 })
  t.equal(product.currencyRateId, rateId)
  t.equal(product.price, 9.99)
  t.equal(product.priceRub, 924.21, '9.99 × 92.5134 = 924.208866 → 924.21')

  t.equal(await setRate(app, shop.shopId, 'USD', 100.5), rateId, 'updating a rate keeps its id')
  const after = (await get(app, shop, `/v1/products/${product.id}`)).json().data.product
  t.equal(after.priceRub, 1004, '9.99 × 100.5 = 1003.995 → 1004 (half up)')
  t.equal(after.price, 9.99, 'the price itself is unchanged')
  const listed = (await get(app, shop, '/v1/products')).json().data.products[0]
  t.equal(listed.priceRub, after.priceRub, 'the list uses the current rate too')

  // Floats lose the kopeck here: 0.15 * 1.5 * 100 is 22.499999999999996, so
  // Math.round(0.15 * 1.5 * 100) / 100 gives 0.22; the exact product 0.225 rounds to 0.23.
  const eur = await setRate(app, shop.shopId, 'EUR', 2)
  const cheap = await createProduct(app, shop, { currencyRateId: eur, price: 0.15 })
  t.equal(cheap.priceRub, 0.3)
  await setRate(app, shop.shopId, 'EUR', 1.5)
  const reread = (await get(app, shop, `/v1/products/${cheap.id}`)).json().data.product
  t.equal(reread.priceRub, 0.23, '0.15 × 1.5 = 0.225 → 0.23 (floats give 0.22)')
})

t.test('rounding of priceRub is half up on the exact product', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const cases: Array<[number, number, number]> = [
    [0.05, 0.1, 0.01], // 0.005 → 0.01
    [0.1, 3, 0.3], // floats: 0.30000000000000004
    [1.15, 1, 1.15],
    [0.01, 0.000001, 0], // 0.00000001 → 0
    [1_000_000_000, 999.999999, 999999999000]
  ]
  for (const [price, rate, priceRub] of cases) {
    const rateId = await setRate(app, shop.shopId, `C${String(rate).replace(/\D/g, '').slice(0, 8)}`, rate)
    const product = await createProduct(app, shop, { currencyRateId: rateId, price })
    t.equal(product.priceRub, priceRub, `${price} × ${rate}`)
  }
})

t.test('archive hides and deactivates; un-archive leaves the product inactive', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  t.equal(product.active, true)

  let res = await archive(app, shop, product.id, true)
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json().data.product, { id: product.id, archived: true, active: false })
  t.match((await get(app, shop, `/v1/products/${product.id}`)).json().data.product, { archived: true, active: false })

  res = await put(app, shop, product.id, productInput(product.categoryId, { isActive: true, title: 'Still archived' }))
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json().data.product, { title: 'Still archived', archived: true, active: false }, 'PUT cannot activate an archived product')

  const reduced = (await get(app, shop, '/v1/products?view=reduced')).json().data.products
  t.same(reduced, [], 'archived products are hidden from the reduced list')

  res = await archive(app, shop, product.id, false)
  t.equal(res.statusCode, 200)
  t.match(res.json().data.product, { archived: false, active: false }, 'un-archived but still inactive')

  res = await put(app, shop, product.id, productInput(product.categoryId, { isActive: true }))
  t.match(res.json().data.product, { archived: false, active: true }, 'after un-archiving, PUT can activate it')

  res = await archive(app, shop, product.id, false)
  t.match(res.json().data.product, { archived: false, active: true }, 'un-archiving a product that is not archived changes nothing')

  res = await app.inject({ method: 'POST', url: `/v1/products/${product.id}/archive`, headers: shop.headers, payload: {} })
  assertInvalid(t, res, 'body.archived', 'archive without `archived`')
  res = await app.inject({ method: 'POST', url: `/v1/products/${product.id}/archive`, headers: shop.headers, payload: { archived: 'yes' } })
  assertInvalid(t, res, 'body.archived', 'archive with a string')
  assertNotFound(t, await archive(app, shop, randomUUID(), true), 'archive of an unknown product')
})

t.test('the full list: newest first, paged, with total and filters', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  await createProduct(app, other)
  const created: Array<{ id: string }> = []
  for (let i = 0; i < 5; i++) {
    created.push(await createProduct(app, shop, { title: `Product ${i}`, external: i % 2 === 0, isActive: i !== 1 }))
  }
  await archive(app, shop, created[4].id, true)

  const all = (await get(app, shop, '/v1/products?limit=100')).json().data
  t.equal(all.total, 5, 'only this shop\'s products')
  t.equal(all.page, 1)
  t.equal(all.limit, 100)
  const ids = all.products.map((p: { id: string }) => p.id)
  t.same([...ids].sort(), created.map((p) => p.id).sort())
  const sorted = [...all.products].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
  t.same(ids, sorted.map((p) => p.id), 'newest first, id breaking ties')
  t.equal(ids.at(-1), created[0].id, 'the first product created is last')

  const defaults = (await get(app, shop, '/v1/products')).json().data
  t.equal(defaults.page, 1)
  t.equal(defaults.limit, 20)

  const pages = []
  for (const page of [1, 2, 3]) {
    const res = await get(app, shop, `/v1/products?page=${page}&limit=2`)
    t.equal(res.statusCode, 200)
    const data = res.json().data
    t.equal(data.total, 5)
    t.equal(data.page, page)
    t.equal(data.limit, 2)
    pages.push(...data.products.map((p: { id: string }) => p.id))
  }
  t.same(pages, ids, 'pages 1–3 of two cover the list in order, without repeats')
  t.same((await get(app, shop, '/v1/products?page=4&limit=2')).json().data.products, [], 'past the end is empty')

  const filtered = async (query: string) => {
    const data = (await get(app, shop, `/v1/products?${query}&limit=100`)).json().data
    return { total: data.total, ids: data.products.map((p: { id: string }) => p.id).sort() }
  }
  const idsOf = (...indexes: number[]) => indexes.map((i) => created[i].id).sort()
  t.same(await filtered('external=true'), { total: 3, ids: idsOf(0, 2, 4) })
  t.same(await filtered('external=false'), { total: 2, ids: idsOf(1, 3) })
  t.same(await filtered('archived=true'), { total: 1, ids: idsOf(4) })
  t.same(await filtered('archived=false'), { total: 4, ids: idsOf(0, 1, 2, 3) })
  t.same(await filtered('active=false'), { total: 2, ids: idsOf(1, 4) })
  t.same(await filtered('active=true&external=true&archived=false'), { total: 2, ids: idsOf(0, 2) })
  t.same(await filtered('view=full&active=true'), { total: 3, ids: idsOf(0, 2, 3) })

  for (const query of ['page=0', 'limit=0', 'limit=101', 'page=x', 'active=maybe', 'view=compact']) {
    const res = await get(app, shop, `/v1/products?${query}`)
    t.equal(res.statusCode, 400, query)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', query)
  }
})

t.test('view=reduced: non-archived products with external automation, reduced shape', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const external = await createProduct(app, shop, {
    title: 'External',
    fields: [
      { type: 'select', label: 'Edition', required: true, multiple: true, options: [{ label: 'Standard', price: 5 }], dataRequestWebhookUrl: 'https://hooks.example.com/' }
    ]
  })
  const inactive = await createProduct(app, shop, { title: 'Inactive external', isActive: false })
  await createProduct(app, shop, { title: 'Internal', external: false })
  const archived = await createProduct(app, shop, { title: 'Archived' })
  await archive(app, shop, archived.id, true)

  const res = await get(app, shop, '/v1/products?view=reduced')
  t.equal(res.statusCode, 200)
  const data = res.json().data
  t.same(Object.keys(data), ['products'], 'no paging in the reduced form')
  t.same(data.products.map((p: { id: string }) => p.id).sort(), [external.id, inactive.id].sort())
  const item = data.products.find((p: { id: string }) => p.id === external.id)
  t.same(Object.keys(item).sort(), ['active', 'fields', 'id', 'price', 'title'])
  t.same(item.fields, [{
    id: external.fields[0].id,
    type: 'select',
    label: 'Edition',
    required: true,
    multiple: true,
    options: [{ id: external.fields[0].options[0].id, label: 'Standard' }],
    valuePricing: false,
    valueMin: 0,
    valueMax: 0,
    valueStep: 0,
    dataRequest: false
  }], 'options carry only id and label; no webhook or requestAfterPayment')
  t.equal(item.price, external.price)
})

t.test('PUT replaces everything, keeping the ids of fields and options sent with them', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const [text, select] = product.fields
  const res = await put(app, shop, product.id, productInput(product.categoryId, {
    title: 'Replaced',
    price: 10,
    external: false,
    fields: [
      { ...select, label: 'Edition (renamed)', options: [{ id: select.options[1].id, label: 'Deluxe', price: 200 }, { label: 'Ultimate', price: 300 }] },
      { type: 'text', label: 'Nickname', required: false, multiple: false, options: [] }
    ]
  }))
  t.equal(res.statusCode, 200, res.body)
  const replaced = res.json().data.product
  t.match(replaced, { id: product.id, title: 'Replaced', price: 10, external: false, createdAt: product.createdAt })
  t.ok(replaced.updatedAt >= product.updatedAt)
  t.equal(replaced.fields.length, 2, 'the text field left out is gone')
  t.equal(replaced.fields[0].id, select.id, 'the select field kept its id')
  t.equal(replaced.fields[0].label, 'Edition (renamed)')
  t.equal(replaced.fields[0].options[0].id, select.options[1].id, 'the option kept its id')
  t.equal(replaced.fields[0].options[0].price, 200)
  t.not(replaced.fields[0].options[1].id, select.options[0].id, 'a new option gets a new id')
  t.not(replaced.fields[1].id, text.id, 'a new field gets a new id')

  assertInvalid(t, await put(app, shop, product.id, productInput(product.categoryId, { fields: [{ ...textField('X'), id: randomUUID() }] })), 'body.fields.0.id', 'an unknown field id')
  assertInvalid(t, await put(app, shop, product.id, productInput(product.categoryId, { fields: [{ ...textField('X'), id: text.id }] })), 'body.fields.0.id', 'the id of a field that was removed')
  const otherProduct = await createProduct(app, shop)
  assertInvalid(t, await put(app, shop, product.id, productInput(product.categoryId, { fields: [{ ...textField('X'), id: otherProduct.fields[0].id }] })), 'body.fields.0.id', 'another product\'s field id')
  assertInvalid(t, await put(app, shop, product.id, productInput(product.categoryId, {
    fields: [{ type: 'select', label: 'S', required: false, multiple: false, options: [{ id: otherProduct.fields[1].options[0].id, label: 'A', price: 0 }] }]
  })), 'body.fields.0.options.0.id', 'an option id of another field')
  assertInvalid(t, await put(app, shop, product.id, productInput(product.categoryId, { fields: [{ ...textField('X'), id: select.id }, { ...textField('Y'), id: select.id }] })), 'body.fields.1.id', 'one field id twice')
  assertInvalid(t, await post(app, shop, productInput(product.categoryId, { fields: [{ ...textField('X'), id: select.id }] })), 'body.fields.0.id', 'a field id on create')

  const unchanged = (await get(app, shop, `/v1/products/${product.id}`)).json().data.product
  t.same(unchanged, replaced, 'a refused PUT changes nothing')
})

t.test('a client can PUT back what it GOT: unknown top-level properties are ignored', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const category = await categoryWithFilter(app, shop.headers)
  const rateId = await setRate(app, shop.shopId, 'EUR', 101.25)
  const product = await createProduct(app, shop, {
    categoryId: category.id,
    currencyRateId: rateId,
    filters: [{ filterId: category.filters[0].id, optionIds: [category.filters[0].options[0].id] }]
  })
  const res = await put(app, shop, product.id, { ...product, isActive: product.active })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json().data.product, { ...product, updatedAt: res.json().data.product.updatedAt }, 'the same product comes back')

  const extra = await post(app, shop, { ...productInput(category.id), somethingNew: 1, id: randomUUID(), priceRub: 5 })
  t.equal(extra.statusCode, 201, extra.body)
  t.notOk('somethingNew' in extra.json().data.product)
})

t.test('another shop\'s product is not found; malformed ids are 404, never 500', async (t) => {
  const app = await build(t)
  const owner = await createShop(app)
  const stranger = await createShop(app, 'Stranger')
  const product = await createProduct(app, owner)
  const input = productInput(product.categoryId)

  assertNotFound(t, await get(app, stranger, `/v1/products/${product.id}`), 'GET another shop\'s product')
  assertNotFound(t, await put(app, stranger, product.id, input), 'PUT another shop\'s product')
  assertNotFound(t, await archive(app, stranger, product.id, true), 'archive another shop\'s product')
  t.same((await get(app, stranger, '/v1/products')).json().data.products, [])
  t.same((await get(app, stranger, '/v1/products?view=reduced')).json().data.products, [])
  const untouched = (await get(app, owner, `/v1/products/${product.id}`)).json().data.product
  t.same(untouched, product, 'the stranger changed nothing')

  for (const id of ['not-a-uuid', '123', `urn:uuid:${product.id}`, `${product.id}x`, randomUUID(), '%00']) {
    assertNotFound(t, await get(app, owner, `/v1/products/${id}`), `GET ${id}`)
    assertNotFound(t, await put(app, owner, id, input), `PUT ${id}`)
    assertNotFound(t, await archive(app, owner, id, true), `archive ${id}`)
  }
})

t.test('the product routes need a key', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  for (const [method, url] of [['GET', '/v1/products'], ['POST', '/v1/products'], ['GET', `/v1/products/${product.id}`], ['PUT', `/v1/products/${product.id}`], ['POST', `/v1/products/${product.id}/archive`]] as const) {
    const res = await app.inject({ method, url, payload: method === 'GET' ? undefined : {} })
    t.equal(res.statusCode, 401, `${method} ${url}`)
    t.equal(res.json().error.code, 'API_KEY_INVALID')
  }
})

t.test('POST honours Idempotency-Key: one product for a repeated request', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop), { title: 'Once' })
  const headers = { ...shop.headers, 'idempotency-key': `create-${randomUUID()}` }
  const first = await app.inject({ method: 'POST', url: '/v1/products', headers, payload: input })
  const second = await app.inject({ method: 'POST', url: '/v1/products', headers, payload: input })
  t.equal(first.statusCode, 201)
  t.equal(second.statusCode, 201)
  t.equal(second.headers['idempotency-replayed'], 'true')
  t.equal(second.json().data.product.id, first.json().data.product.id)
  t.equal((await get(app, shop, '/v1/products')).json().data.total, 1)
})
