import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { build, categoryWithFilter, createShop, setRate, type App, type ShopFixture } from '../helper.js'
import { anyCategoryId, createProduct, productInput, type ProductInput } from '../fixtures/products.js'
import { uploadImage } from '../fixtures/images.js'

type Category = { id: string, pathEn: string, filters: Array<{ id: string, options: Array<{ id: string }> }> }

const post = (app: App, shop: ShopFixture, payload: unknown) =>
  app.inject({ method: 'POST', url: '/v1/products', headers: shop.headers, payload: payload as object })
const put = (app: App, shop: ShopFixture, id: string, payload: unknown) =>
  app.inject({ method: 'PUT', url: `/v1/products/${id}`, headers: shop.headers, payload: payload as object })
const get = (app: App, shop: ShopFixture, url: string) =>
  app.inject({ method: 'GET', url, headers: shop.headers })
const archive = (app: App, shop: ShopFixture, id: string, archived: boolean) =>
  app.inject({ method: 'POST', url: `/v1/products/${id}/archive`, headers: shop.headers, payload: { archived } })

async function categories (app: App, shop: ShopFixture): Promise<Category[]> {
  return (await get(app, shop, '/v1/categories')).json().data.categories
}

/** Asserts a 400 VALIDATION_ERROR whose details name `path`. */
function assertInvalid (t: Test, res: Awaited<ReturnType<App['inject']>>, path: string, label = path) {
  t.equal(res.statusCode, 400, res.statusCode === 400 ? label : `${label}: ${res.body}`)
  const error = res.json().error
  t.equal(error.code, 'VALIDATION_ERROR', label)
  t.ok((error.details ?? []).some((d: { path: string }) => d.path === path), `${label}: details name ${path}`)
}

function assertNotFound (t: Test, res: Awaited<ReturnType<App['inject']>>, label: string) {
  t.equal(res.statusCode, 404, res.statusCode === 404 ? label : `${label}: ${res.body}`)
  t.equal(res.json().error.code, 'ORDER_NOT_FOUND', label)
}

const textField = (label: string) => ({ type: 'text', label, required: false, multiple: false, options: [] })

t.test('creates a product and reads it back in the full representation', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const categoryId = await anyCategoryId(app, shop)
  const res = await post(app, shop, productInput(categoryId, { title: '  Padded title  ', employeeReward: { type: 'fixed', value: 12.5 } }))
  t.equal(res.statusCode, 201, res.body)
  const product = res.json().data.product
  t.match(product, {
    title: 'Padded title',
    description: 'Global activation key.',
    categoryId,
    active: true,
    archived: false,
    external: true,
    currencyRateId: '',
    price: 499.9,
    priceRub: 499.9,
    imageId: '',
    imageUrl: '',
    employeeReward: { type: 'fixed', value: 12.5 },
    filters: []
  })
  t.match(product.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.equal(product.updatedAt, product.createdAt)
  t.same(Object.keys(product.fields[0]).sort(), [
    'dataRequest', 'dataRequestWebhookUrl', 'id', 'label', 'multiple', 'options', 'requestAfterPayment', 'required',
    'type', 'valueMax', 'valueMin', 'valuePricing', 'valueStep'
  ], 'every field property is present')
  t.match(product.fields[0], { type: 'text', label: 'Email for delivery', required: true, valuePricing: false, valueMin: 0, valueMax: 0, valueStep: 0, dataRequest: false, dataRequestWebhookUrl: '', requestAfterPayment: false })
  t.match(product.fields[1].options, [{ label: 'Standard', price: 0 }, { label: 'Deluxe', price: 150.5 }])
  t.match(product.fields[1].options[0].id, /^[0-9a-f-]{36}$/)

  const again = await get(app, shop, `/v1/products/${product.id}`)
  t.equal(again.statusCode, 200)
  t.same(again.json().data.product, product)
})

t.test('every one of the 11 input properties is required', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop))
  const properties = Object.keys(input) as Array<keyof ProductInput>
  t.equal(properties.length, 11)
  for (const property of properties) {
    const body: Partial<ProductInput> = { ...input }
    delete body[property]
    assertInvalid(t, await post(app, shop, body), `body.${property}`, `POST without ${property}`)
  }
  const created = await createProduct(app, shop)
  for (const property of properties) {
    const body: Partial<ProductInput> = { ...input }
    delete body[property]
    assertInvalid(t, await put(app, shop, created.id, body), `body.${property}`, `PUT without ${property}`)
  }
  const empty = await post(app, shop, {})
  t.equal(empty.statusCode, 400)
  t.equal(empty.json().error.details.length, 11, 'every missing property is reported at once')
})

t.test('types are not coerced in the body', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop))
  assertInvalid(t, await post(app, shop, { ...input, price: '10' }), 'body.price')
  assertInvalid(t, await post(app, shop, { ...input, isActive: 'true' }), 'body.isActive')
  assertInvalid(t, await post(app, shop, { ...input, fields: {} }), 'body.fields')
})

t.test('limits on title, description and price', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop))
  assertInvalid(t, await post(app, shop, { ...input, title: '' }), 'body.title', 'empty title')
  assertInvalid(t, await post(app, shop, { ...input, title: ' \t\n ' }), 'body.title', 'whitespace title')
  assertInvalid(t, await post(app, shop, { ...input, title: 'x'.repeat(201) }), 'body.title', '201-character title')
  const longest = await post(app, shop, { ...input, title: `  ${'x'.repeat(200)}  ` })
  t.equal(longest.statusCode, 201, '200 characters after trimming is fine')
  t.equal(longest.json().data.product.title, 'x'.repeat(200))
  const unicode = await post(app, shop, { ...input, title: 'Ключ 🎮 '.repeat(25).trim() })
  t.equal(unicode.statusCode, 201, 'length counts characters, not UTF-16 units')

  assertInvalid(t, await post(app, shop, { ...input, description: 'd'.repeat(20_001) }), 'body.description', '20001-character description')
  t.equal((await post(app, shop, { ...input, description: 'd'.repeat(20_000) })).statusCode, 201)
  t.equal((await post(app, shop, { ...input, description: '' })).statusCode, 201, 'an empty description is allowed')

  assertInvalid(t, await post(app, shop, { ...input, price: -0.01 }), 'body.price', 'negative price')
  assertInvalid(t, await post(app, shop, { ...input, price: 1.005 }), 'body.price', 'price with 3 decimals')
  assertInvalid(t, await post(app, shop, { ...input, price: 1_000_000_000.01 }), 'body.price', 'price over 1e9')
  const max = await post(app, shop, { ...input, price: 1_000_000_000 })
  t.equal(max.statusCode, 201)
  t.equal(max.json().data.product.price, 1_000_000_000)
  const zero = await post(app, shop, { ...input, price: 0 })
  t.equal(zero.statusCode, 201)
  t.equal(zero.json().data.product.price, 0)
  const cents = await post(app, shop, { ...input, price: 0.07 })
  t.equal(cents.json().data.product.price, 0.07)

  assertInvalid(t, await post(app, shop, { ...input, title: 'a\u0000b' }), 'body.title', 'NUL in the title')
})

t.test('employee reward: percent 0–100 or a fixed amount', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop))
  assertInvalid(t, await post(app, shop, { ...input, employeeReward: { type: 'percent', value: 100.01 } }), 'body.employeeReward.value')
  assertInvalid(t, await post(app, shop, { ...input, employeeReward: { type: 'bonus', value: 1 } }), 'body.employeeReward.type')
  assertInvalid(t, await post(app, shop, { ...input, employeeReward: { type: 'fixed', value: -1 } }), 'body.employeeReward.value')
  assertInvalid(t, await post(app, shop, { ...input, employeeReward: { type: 'percent' } }), 'body.employeeReward.value')
  t.equal((await post(app, shop, { ...input, employeeReward: { type: 'percent', value: 100 } })).statusCode, 201)
  t.equal((await post(app, shop, { ...input, employeeReward: { type: 'fixed', value: 5000 } })).statusCode, 201)
})

t.test('at most 50 fields, 100 options a field and 50 filters', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop))
  const fields = (n: number) => Array.from({ length: n }, (_, i) => textField(`Field ${i}`))
  t.equal((await post(app, shop, { ...input, fields: fields(50) })).statusCode, 201, '50 fields')
  assertInvalid(t, await post(app, shop, { ...input, fields: fields(51) }), 'body.fields', '51 fields')

  const select = (n: number) => [{ type: 'select', label: 'Pick', required: true, multiple: false, options: Array.from({ length: n }, (_, i) => ({ label: `Option ${i}`, price: i })) }]
  t.equal((await post(app, shop, { ...input, fields: select(100) })).statusCode, 201, '100 options')
  assertInvalid(t, await post(app, shop, { ...input, fields: select(101) }), 'body.fields.0.options', '101 options')

  const filters = Array.from({ length: 51 }, () => ({ filterId: randomUUID(), optionIds: [] }))
  assertInvalid(t, await post(app, shop, { ...input, filters }), 'body.filters', '51 filters')
})

t.test('field rules by type', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const input = productInput(await anyCategoryId(app, shop))
  const withField = (field: Record<string, unknown>) => ({ ...input, fields: [{ ...textField('F'), ...field }] })
  const option = { label: 'A', price: 1 }

  assertInvalid(t, await post(app, shop, withField({ type: 'text', options: [option] })), 'body.fields.0.options', 'text with options')
  assertInvalid(t, await post(app, shop, withField({ type: 'number', options: [option], valueStep: 1 })), 'body.fields.0.options', 'number with options')
  assertInvalid(t, await post(app, shop, withField({ type: 'number', valueMin: 10, valueMax: 5, valueStep: 1 })), 'body.fields.0.valueMin', 'number with min > max')
  assertInvalid(t, await post(app, shop, withField({ type: 'number', valueMin: 0, valueMax: 5, valueStep: 0 })), 'body.fields.0.valueStep', 'number with step 0')
  assertInvalid(t, await post(app, shop, withField({ type: 'number', valueMin: 0, valueMax: 5 })), 'body.fields.0.valueStep', 'number without a step')
  assertInvalid(t, await post(app, shop, withField({ type: 'select', options: [] })), 'body.fields.0.options', 'select without options')
  assertInvalid(t, await post(app, shop, withField({ type: 'date' })), 'body.fields.0.type', 'unknown type')
  assertInvalid(t, await post(app, shop, withField({ dataRequestWebhookUrl: 'http://hooks.example.com/x' })), 'body.fields.0.dataRequestWebhookUrl', 'http webhook')
  assertInvalid(t, await post(app, shop, withField({ dataRequestWebhookUrl: 'not a url' })), 'body.fields.0.dataRequestWebhookUrl', 'webhook that is no URL')
  assertInvalid(t, await post(app, shop, withField({ label: '' })), 'body.fields.0.label', 'empty label')
  assertInvalid(t, await post(app, shop, withField({ type: 'select', options: [{ label: 'A', price: 0.001 }] })), 'body.fields.0.options.0.price', 'option price with 3 decimals')

  const number = await post(app, shop, withField({
    type: 'number',
    valueMin: 1,
    valueMax: 10.5,
    valueStep: 0.5,
    valuePricing: true,
    dataRequest: true,
    dataRequestWebhookUrl: 'https://hooks.example.com/data',
    requestAfterPayment: true
  }))
  t.equal(number.statusCode, 201, number.body)
  t.match(number.json().data.product.fields[0], {
    type: 'number',
    valueMin: 1,
    valueMax: 10.5,
    valueStep: 0.5,
    valuePricing: true,
    dataRequest: true,
    dataRequestWebhookUrl: 'https://hooks.example.com/data',
    requestAfterPayment: true,
    options: []
  })
  const equalBounds = await post(app, shop, withField({ type: 'number', valueMin: 3, valueMax: 3, valueStep: 1 }))
  t.equal(equalBounds.statusCode, 201, 'valueMin may equal valueMax')
})

t.test('referenced ids must exist and be this shop\'s: 404 naming the property', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const input = productInput(await anyCategoryId(app, shop))
  const cases: Array<[string, Partial<ProductInput>]> = [
    ['categoryId', { categoryId: randomUUID() }],
    ['categoryId', { categoryId: 'not-a-uuid' }],
    ['categoryId', { categoryId: '' }],
    ['currencyRateId', { currencyRateId: randomUUID() }],
    ['currencyRateId', { currencyRateId: 'USD' }],
    ['currencyRateId', { currencyRateId: await setRate(app, other.shopId, 'USD', 90) }],
    ['imageId', { imageId: randomUUID() }],
    ['imageId', { imageId: 'image.png' }],
    ['imageId', { imageId: (await uploadImage(app, other)).id }]
  ]
  for (const [property, override] of cases) {
    const res = await post(app, shop, { ...input, ...override })
    assertNotFound(t, res, `${property} = ${Object.values(override)[0]}`)
    t.match(res.json().error.message, property, `the message names ${property}`)
  }
  const created = await createProduct(app, shop)
  for (const [property, override] of cases) {
    const res = await put(app, shop, created.id, { ...input, ...override })
    assertNotFound(t, res, `PUT ${property}`)
    t.match(res.json().error.message, property)
  }
})

t.test('an image of the shop is linked by imageUrl', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const image = await uploadImage(app, shop)
  const product = await createProduct(app, shop, { imageId: image.id })
  t.equal(product.imageId, image.id)
  t.equal(product.imageUrl, `http://files.test/${image.filePath}`)
  const file = await app.inject({ method: 'GET', url: new URL(product.imageUrl).pathname })
  t.equal(file.statusCode, 200)
  const cleared = await put(app, shop, product.id, productInput(product.categoryId, { imageId: '' }))
  t.equal(cleared.json().data.product.imageUrl, '')
})

t.test('filters are checked against the product\'s category', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const all = await categories(app, shop)
  const category = await categoryWithFilter(app, shop.headers)
  const otherCategory = all.find((c) => c.id !== category.id && c.filters.length > 0)!
  t.ok(otherCategory, 'the seeded taxonomy has two categories with filters')
  const [filter] = category.filters
  const input = productInput(category.id)

  const ok = await post(app, shop, { ...input, filters: [{ filterId: filter.id, optionIds: [filter.options[0].id] }] })
  t.equal(ok.statusCode, 201, ok.body)
  t.same(ok.json().data.product.filters, [{ filterId: filter.id, optionIds: [filter.options[0].id] }])

  const foreign = otherCategory.filters[0]
  assertInvalid(t, await post(app, shop, { ...input, filters: [{ filterId: foreign.id, optionIds: [foreign.options[0].id] }] }), 'body.filters.0.filterId', 'another category\'s filter')
  assertInvalid(t, await post(app, shop, { ...input, filters: [{ filterId: filter.id, optionIds: [foreign.options[0].id] }] }), 'body.filters.0.optionIds.0', 'another filter\'s option')
  assertInvalid(t, await post(app, shop, { ...input, filters: [{ filterId: filter.id, optionIds: [] }, { filterId: filter.id, optionIds: [] }] }), 'body.filters.1.filterId', 'the same filter twice')
  assertInvalid(t, await post(app, shop, { ...input, filters: [{ filterId: 'nope', optionIds: [] }] }), 'body.filters.0.filterId', 'a malformed filter id')
  assertInvalid(t, await post(app, shop, { ...input, filters: [{ filterId: filter.id, optionIds: [filter.options[0].id, filter.options[0].id] }] }), 'body.filters.0.optionIds', 'an option twice')

  // Moving the product to another category makes its filters invalid.
  const moved = await put(app, shop, ok.json().data.product.id, { ...input, categoryId: otherCategory.id, filters: ok.json().data.product.filters })
  assertInvalid(t, moved, 'body.filters.0.filterId', 'filters after a category change')
})

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
