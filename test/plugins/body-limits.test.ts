// Body limits per route (schemas/body-limits.ts): the largest legal product,
// delivery and category, written the longest legal way, are accepted; a body
// over its route's limit is 413 before it is parsed; a body with more values
// than any legal one is 400 before validation walks it.
import t from 'tap'
import { MAX_VALUES } from '../../plugins/json-body.js'
import { CATEGORY_BODY_LIMIT, DEFAULT_BODY_LIMIT, DELIVER_BODY_LIMIT, PRODUCT_BODY_LIMIT } from '../../schemas/body-limits.js'
import { asciiJson, largestCategory, largestDelivery, largestProduct } from '../fixtures/largest-bodies.js'
import { orderIn } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { build, createShop, internalHeaders } from '../helper.js'

const json = { 'content-type': 'application/json' }

t.test('the largest legal bodies fit their routes', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)

  const categoryBody = asciiJson(largestCategory(`c${Date.now()}`))
  t.ok(categoryBody.length > 0.8 * CATEGORY_BODY_LIMIT && categoryBody.length <= CATEGORY_BODY_LIMIT, `category: ${categoryBody.length} of ${CATEGORY_BODY_LIMIT} bytes`)
  const category = await app.inject({ method: 'POST', url: '/internal/v1/categories', headers: { ...internalHeaders, ...json }, payload: categoryBody })
  t.equal(category.statusCode, 201, category.body.slice(0, 200))

  const productBody = asciiJson(largestProduct(category.json().data.category))
  t.ok(productBody.length > 0.85 * PRODUCT_BODY_LIMIT && productBody.length <= PRODUCT_BODY_LIMIT, `product: ${productBody.length} of ${PRODUCT_BODY_LIMIT} bytes`)
  const created = await app.inject({ method: 'POST', url: '/v1/products', headers: { ...shop.headers, ...json }, payload: productBody })
  t.equal(created.statusCode, 201, created.body.slice(0, 300))
  const product = created.json().data.product
  t.equal(product.fields.length, 50)
  t.equal(product.fields[49].options.length, 100)
  const replaced = await app.inject({ method: 'PUT', url: `/v1/products/${product.id}`, headers: { ...shop.headers, ...json }, payload: productBody })
  t.equal(replaced.statusCode, 200, 'and replaced with the same body')

  const order = await orderIn(app, shop, await createProduct(app, shop), 'processing')
  const deliveryBody = asciiJson(largestDelivery())
  t.ok(deliveryBody.length > 0.95 * DELIVER_BODY_LIMIT && deliveryBody.length <= DELIVER_BODY_LIMIT, `delivery: ${deliveryBody.length} of ${DELIVER_BODY_LIMIT} bytes`)
  const delivered = await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/deliver`, headers: { ...shop.headers, ...json, 'idempotency-key': 'largest' }, payload: deliveryBody })
  t.equal(delivered.statusCode, 200, delivered.body.slice(0, 300))
  t.equal(delivered.json().data.order.deliveredValues.length, 100)
})

t.test('bodies over their route\'s limit are 413; too many values are 400', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const order = '00000000-0000-4000-8000-000000000000'
  const zeros = (bytes: number) => `[${'0,'.repeat(Math.floor(bytes / 2) - 1)}0]`
  const over: Array<[string, string, number]> = [
    ['a take', `/v1/orders/${order}/take`, DEFAULT_BODY_LIMIT],
    ['a cancel', `/v1/orders/${order}/cancel`, DEFAULT_BODY_LIMIT],
    ['a message', `/v1/orders/${order}/messages`, DEFAULT_BODY_LIMIT],
    ['a delivery', `/v1/orders/${order}/deliver`, DELIVER_BODY_LIMIT],
    ['a product', '/v1/products', PRODUCT_BODY_LIMIT]
  ]
  for (const [name, url, limit] of over) {
    const res = await app.inject({ method: 'POST', url, headers: { ...shop.headers, ...json }, payload: JSON.stringify({ value: 'x'.repeat(limit) }) })
    t.equal(res.statusCode, 413, `${name} over ${limit} bytes`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
  t.ok(DEFAULT_BODY_LIMIT <= 64 * 1024, 'most routes take kilobytes')

  // Under the delivery's limit, but a million values: refused before validation walks them.
  const many = await app.inject({ method: 'POST', url: `/v1/orders/${order}/deliver`, headers: { ...shop.headers, ...json }, payload: `{"values":${zeros(2_000_000)}}` })
  t.equal(many.statusCode, 400)
  t.match(many.json().error, { code: 'VALIDATION_ERROR', message: new RegExp(`more than ${MAX_VALUES} values`) })
  const manyErrors = await app.inject({ method: 'POST', url: `/v1/orders/${order}/deliver`, headers: { ...shop.headers, ...json }, payload: `{"values":${zeros(2 * (MAX_VALUES - 10))}}` })
  t.equal(manyErrors.statusCode, 400)
  t.ok(manyErrors.json().error.details.length <= 100, 'at most 100 problems are listed')
})
