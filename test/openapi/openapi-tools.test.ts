// The OpenAPI documents as tools nobody here wrote read them (docs/api-document.md):
// OpenAPI 3.1 with a `webhooks` section that every request the service sends
// matches, money a stock JSON Schema validator accepts, the response enums of
// the inputs (what a GET returned type-checks as a PUT), no baked-in address,
// and the smaller points a generated client and a validating proxy trip on.
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fastJson from 'fast-json-stringify'
import t from 'tap'
import { DELIVERY_REQUEST_TYPE, eventTypes, WEBHOOK_TEST_EVENT } from '../../domain/event-types.js'
import { localJustInTime, putDeliveryEndpoint } from '../fixtures/delivery-endpoint.js'
import { validateAgainst } from '../fixtures/openapi-drift.js'
import { act, buy, confirm, postAsBuyer } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import { claimAction, openedClaim, operatorAction } from '../fixtures/claims.js'
import { build, createShop } from '../helper.js'
import { Envelope } from '../../schemas/common.js'
import { EventFeedPage, eventSchemas } from '../../schemas/events.js'

type Json = Record<string, any>

/** A validator as gateways and generated clients use one: Ajv for JSON Schema 2020-12, no tuning. */
function stockValidator (document: Json, schemaName: string) {
  const ajv = new Ajv2020({ strict: false })
  addFormats.default(ajv)
  return ajv.compile({ $ref: `#/components/schemas/${schemaName}`, components: document.components })
}

t.test('3.1, a relative server, money without multipleOf, response enums, the smaller points', async (t) => {
  const app = await build(t)
  const seller = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  const operator = app.internalSwagger() as Json
  t.equal(seller.openapi, '3.1.0')
  t.equal(operator.openapi, '3.1.0')
  t.same(seller.servers.map((s: Json) => s.url), ['/'], 'no instance address to bake in')

  for (const [name, document] of [['seller', seller], ['operator', operator]] as const) {
    t.notMatch(JSON.stringify(document), /multipleOf/, `${name}: no multipleOf anywhere`)
  }
  const price = seller.components.schemas.ProductInput.properties.price
  t.equal(price['x-decimals'], 2, 'the 2-decimal rule as an extension')
  t.match(price.description, /At most 2 decimal places/, 'and in words')

  // What a gateway's validator answered 422 to: valid money, refused in binary floating point.
  const productInput = stockValidator(seller, 'ProductInput')
  const product = (amount: number) => ({
    categoryId: 'c',
    title: 'A key',
    description: '',
    isActive: true,
    external: true,
    currencyRateId: '',
    price: amount,
    imageId: '',
    employeeReward: { type: 'fixed', value: amount },
    fields: [{ type: 'number', label: 'Amount', required: false, multiple: false, options: [], valueMin: 0, valueMax: 100, valueStep: amount }],
    filters: []
  })
  for (const amount of [1.14, 19.99, 0.07, 1.1, 12345.67]) t.ok(productInput(product(amount)), `price ${amount} is valid money`)
  const rateInput = stockValidator(operator, 'CurrencyRateInput')
  for (const rate of [1.1, 0.07, 92.123456]) t.ok(rateInput({ rate }), `rate ${rate} is a valid rate`)
  const created = await app.inject({ method: 'POST', url: '/v1/products', headers: (await createShop(app)).headers, payload: { ...product(19.99), categoryId: undefined } })
  t.equal(created.statusCode, 400, 'the service itself: only the missing category is refused')
  t.notMatch(created.body, /price|valueStep|employeeReward/, 'not the amounts')

  const schemas = seller.components.schemas
  t.same(schemas.Product.properties.employeeReward, { $ref: '#/components/schemas/EmployeeReward' }, 'the input\'s own employeeReward')
  t.same(schemas.ProductField.properties.type.enum, ['text', 'number', 'select'])
  t.same(schemas.ReducedProduct.properties.fields.items.properties.type.enum, ['text', 'number', 'select'])
  t.same(schemas.CategoryFilter.properties.type.enum, ['buttons'])
  t.same(schemas.WebhookDelivery.properties.eventType.enum, [...eventTypes, WEBHOOK_TEST_EVENT])
  t.equal(schemas.CurrencyRate.properties.code.pattern, '^[A-Z][A-Z0-9]{1,9}$', 'the code pattern the service enforces')

  t.equal(schemas.DeliverInput.nullable, undefined, 'DeliverInput is no nullable schema')
  t.equal(schemas.DeliverInput.type, 'object')
  t.equal(seller.paths['/v1/orders/{id}/deliver'].post.requestBody.required, false, 'the body may be left out instead')
  t.equal(schemas.CancelInput.type, 'object')

  const mediaFile = seller.paths['/media/{file}'].get
  for (const status of ['200', '304']) {
    t.same(mediaFile.responses[status].headers['X-Content-Type-Options'], { $ref: '#/components/headers/X-Content-Type-Options' }, `${status} says nosniff`)
  }
  t.same(seller.components.headers['X-Content-Type-Options'].schema, { type: 'string', enum: ['nosniff'] })
  t.match(mediaFile.parameters.find((p: Json) => p.name === 'file').description, /without its `media\/` prefix/)
  t.equal(schemas.Media.properties.filePath.pattern, '^media/[^/]+$')
  t.match(seller.paths['/v1/events'].get.description, /stock signals/, 'the feed is not only orders and chat')
  t.match(seller.info.description, /`Authorization` wins/, 'the two auth schemes: one key, send one')
})

t.test('the webhooks section: every request the service sends matches it, body and headers', async (t) => {
  const app = await build(t, { ...localJustInTime, VALUES_ENCRYPTION_KEY: stockKey() })
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  t.same(Object.keys(document.webhooks).sort(), [...eventTypes, WEBHOOK_TEST_EVENT, DELIVERY_REQUEST_TYPE].sort(), 'one webhook per kind, the test, the delivery request')

  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  // The delivery endpoint (same receiver) cannot supply: the order gets order.delivery_failed.
  receiver.answer = (attempt) => JSON.parse(attempt.body).type === DELIVERY_REQUEST_TYPE ? 409 : 200
  const { endpoint } = await createEndpoint(app, shop, { url: receiver.url })
  await putDeliveryEndpoint(app, shop, receiver.url)

  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  await act(app, shop, order.id, 'take')
  await act(app, shop, order.id, 'deliver', { values: ['K-1', 'K-2'] })
  await confirm(app, order.id)
  // Claims: a replacement with the seller's values (claim.opened, order.updated, claim.resolved),
  // then a rejection the buyer escalates (claim.escalated).
  const replaced = await openedClaim(app, order.id)
  t.equal((await claimAction(app, shop, replaced.id, 'replace', { values: ['K-3', 'K-4'] })).statusCode, 200)
  const rejected = await openedClaim(app, order.id)
  t.equal((await claimAction(app, shop, rejected.id, 'reject', { note: 'Both codes work here.' })).statusCode, 200)
  t.equal((await operatorAction(app, rejected.id, 'escalate')).statusCode, 200)
  const cancelled = await buy(app, product)
  await postAsBuyer(app, cancelled.id, 'Is it region-free?')
  // A keyword rule that calls the seller: its answer brings chat.seller_called.
  const rule = await app.inject({
    method: 'POST',
    url: '/v1/chat-rules',
    headers: shop.headers,
    payload: { name: 'Call the seller', trigger: 'message.keyword', keywords: ['!seller'], callSeller: true, text: 'The seller is on the way.' }
  })
  t.equal(rule.statusCode, 201, rule.body)
  await postAsBuyer(app, cancelled.id, '!seller please')
  await act(app, shop, cancelled.id, 'cancel', { reason: 'out of stock' })
  const stocked = await stockProduct(app, shop, { autoDelivery: 'stock', lowStockThreshold: 1 })
  await addValues(app, shop, stocked.id, ['CODE-0001-AAAA', 'CODE-0002-BBBB'])
  await buy(app, stocked)
  await buy(app, stocked)
  const fromEndpoint = await stockProduct(app, shop, { autoDelivery: 'endpoint' })
  await buy(app, fromEndpoint)
  t.equal((await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/test`, headers: shop.headers })).statusCode, 202)

  const wanted = [...eventTypes, WEBHOOK_TEST_EVENT, DELIVERY_REQUEST_TYPE]
  const typesSeen = () => new Set(receiver.attempts.map((a) => JSON.parse(a.body).type as string))
  await receiver.waitFor(() => wanted.every((type) => typesSeen().has(type)), 20_000, `every kind (seen: ${[...typesSeen()].join(', ')})`)
  for (const attempt of receiver.attempts) {
    const body = JSON.parse(attempt.body)
    const operation = document.webhooks[body.type].post
    const schema = operation.requestBody.content['application/json'].schema
    const checked = validateAgainst(document, schema, body)
    t.ok(checked.ok, `${body.type}: the body matches ${schema.$ref} ${checked.errors}`)
    for (const parameter of operation.parameters) {
      const header = document.components.parameters[parameter.$ref.split('/').pop()]
      const value = attempt.headers[header.name]
      t.ok(typeof value === 'string' && validateAgainst(document, header.schema, value).ok, `${body.type}: header ${header.name} ${String(value)}`)
    }
  }

  // The feed writes each event with its own kind's serializer (routes/v1/events/page-serializer.ts):
  // byte for byte what the page's schema, a union of the kinds, writes.
  const page = await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })
  t.equal(page.statusCode, 200)
  t.same(new Set(page.json().data.events.map((e: Json) => e.type)), new Set(eventTypes), 'the page holds every kind')
  t.match(page.headers['content-type'], /^application\/json; charset=utf-8$/)
  const named = Object.fromEntries(eventSchemas.map((schema) => [schema.$id!, schema]))
  const byTheUnion = fastJson(Envelope(EventFeedPage) as Parameters<typeof fastJson>[0], { schema: named as never })
  t.equal(page.body, byTheUnion(page.json()), 'the feed page: the bytes of the page\'s schema')
})
