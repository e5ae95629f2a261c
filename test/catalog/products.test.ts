// Products: created and read back, and every rule of their input (docs/api-rules.md):
// a 400 naming the field, ids of this shop, filters of the category, rates.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build, categoryWithFilter, createShop, setRate } from '../helper.js'
import { anyCategoryId, createProduct, productInput, type ProductInput } from '../fixtures/products.js'
import { uploadImage } from '../fixtures/images.js'
import { assertInvalid, assertNotFound, categories, get, post, put, textField } from '../fixtures/product-requests.js'

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
