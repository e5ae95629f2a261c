// The OpenAPI document is generated from the route schemas and served.
import t from 'tap'
import { build } from '../helper.js'

t.test('OpenAPI document', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.match(doc.openapi, /^3\./)
  t.ok(doc.components.securitySchemes.bearerAuth && doc.components.securitySchemes.apiKeyHeader)
  t.ok(doc.components.schemas.ErrorResponse, 'the error envelope is a named schema')

  const operations: Array<[string, string]> = [
    ['get', '/v1/products'], ['post', '/v1/products'], ['get', '/v1/products/{id}'], ['put', '/v1/products/{id}'],
    ['post', '/v1/products/{id}/archive'], ['post', '/v1/media'], ['get', '/v1/currency-rates'], ['get', '/v1/categories'],
    ['get', '/v1/orders'], ['get', '/v1/orders/{id}'], ['post', '/v1/orders/{id}/take'], ['post', '/v1/orders/{id}/deliver'],
    ['post', '/v1/orders/{id}/cancel'], ['get', '/v1/orders/{id}/messages'], ['post', '/v1/orders/{id}/messages'],
    ['get', '/v1/events'], ['get', '/v1/stats/sales']
  ]
  for (const [method, path] of operations) {
    const op = doc.paths[path]?.[method]
    t.ok(op, `${method.toUpperCase()} ${path} documented`)
    t.ok(op?.summary, `${path} has a summary`)
    t.ok(op?.responses?.['200'] ?? op?.responses?.['201'], `${path} documents its success response`)
    t.ok(op?.responses?.['401'], `${path} documents 401`)
  }
  const idempotent: Array<[string, string]> = [
    ['post', '/v1/products'], ['post', '/v1/orders/{id}/take'], ['post', '/v1/orders/{id}/deliver'],
    ['post', '/v1/orders/{id}/cancel'], ['post', '/v1/orders/{id}/messages'], ['post', '/v1/chat-rules']
  ]
  for (const [method, path] of idempotent) {
    const headers = (doc.paths[path][method].parameters ?? []).filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name)
    t.ok(headers.includes('idempotency-key'), `${path} documents Idempotency-Key`)
  }

  const schemas = doc.components.schemas
  const kinds: Array<[string, string, string]> = [
    ['OrderPaidEvent', 'order.paid', 'OrderEventData'], ['OrderTakenEvent', 'order.taken', 'OrderEventData'],
    ['OrderDeliveredEvent', 'order.delivered', 'OrderEventData'], ['OrderCancelledEvent', 'order.cancelled', 'OrderEventData'],
    ['OrderCompletedEvent', 'order.completed', 'OrderEventData'], ['MessageCreatedEvent', 'message.created', 'MessageEventData'],
    ['StockLowEvent', 'stock.low', 'StockLowEventData'], ['StockEmptyEvent', 'stock.empty', 'StockEmptyEventData'],
    ['OrderDeliveryFailedEvent', 'order.delivery_failed', 'OrderDeliveryFailedEventData'],
    ['ClaimOpenedEvent', 'claim.opened', 'ClaimEventData'], ['ClaimEscalatedEvent', 'claim.escalated', 'ClaimEventData'],
    ['ClaimResolvedEvent', 'claim.resolved', 'ClaimEventData'], ['OrderUpdatedEvent', 'order.updated', 'OrderEventData'],
    ['ChatSellerCalledEvent', 'chat.seller_called', 'ChatSellerCalledEventData']
  ]
  for (const [name, type, data] of kinds) {
    t.same(schemas[name]?.properties?.type?.enum, [type], `${name} is a named schema of kind ${type}`)
    t.equal(schemas[name]?.properties?.data?.$ref, `#/components/schemas/${data}`)
  }
  t.same(schemas.Event.anyOf.map((k: { $ref: string }) => k.$ref), kinds.map(([name]) => `#/components/schemas/${name}`), 'Event is one of the kinds')
  t.equal(schemas.OrderEventData.properties.order.$ref, '#/components/schemas/Order', 'the order payload is the Order')
  t.ok(schemas.Order.properties.status)
  t.equal(schemas.MessageEventData.properties.message.$ref, '#/components/schemas/Message')
  t.ok(schemas.Message.properties.senderRole)
  const events = doc.paths['/v1/events'].get
  t.equal(events.responses['200'].content['application/json'].schema.properties.data.properties.events.items.$ref, '#/components/schemas/Event')
  t.ok(events.responses['410'], 'documents 410 CURSOR_EXPIRED')
  t.same(events.parameters.map((p: { name: string }) => p.name).sort(), ['after', 'limit', 'types', 'wait'])

  const listParams = doc.paths['/v1/orders'].get.parameters as Array<{ name: string, in: string, required?: boolean }>
  for (const name of ['status', 'page', 'limit', 'sort']) {
    t.equal(listParams.find((p) => p.name === name)?.required, false, `query ${name} has a default, so it is optional`)
  }
  t.equal(doc.paths['/v1/products'].get.parameters.find((p: { name: string }) => p.name === 'view')?.required, false)
  t.equal(doc.paths['/v1/orders/{id}/deliver'].post.requestBody.required, false, 'deliver may be sent without a body')
  t.equal(doc.paths['/v1/orders/{id}/cancel'].post.requestBody.required, false, 'cancel may be sent without a body')
  t.equal(doc.paths['/v1/products'].post.requestBody.required, true, 'a product body is required')

  const tuned = await build(t, { RATE_LIMIT_MAX: 42, IDEMPOTENCY_TTL_S: 3600 })
  const described = (await tuned.inject({ method: 'GET', url: '/docs/json' })).json().info.description
  t.match(described, /42 requests per 60 s/, 'the document states the configured limit')
  t.match(described, /remembered 3600 s/)

  const page = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.match(page.body, '<title>Shop Seller Automation API · API reference</title>', 'a page title of our own')
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
  t.match(initializer.body, 'data:image/svg+xml;base64,', 'our header instead of Swagger\'s logo')
  t.equal((await app.inject({ method: 'GET', url: '/docs/static/theme/seller-api.css' })).statusCode, 200)
  const yaml = await app.inject({ method: 'GET', url: '/docs/yaml' })
  t.equal(yaml.statusCode, 200)
})

t.test('response headers are described once, as components; error responses show real messages', async (t) => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  const headerNames = Object.keys(doc.components.headers)
  t.ok(headerNames.includes('X-Request-Id') && headerNames.includes('RateLimit-Remaining'))
  const take = doc.paths['/v1/orders/{id}/take'].post
  for (const [status, response] of Object.entries<{ headers: Record<string, { $ref?: string }> }>(take.responses)) {
    for (const [name, header] of Object.entries(response.headers)) {
      t.match(header.$ref, /^#\/components\/headers\//, `${status} ${name} refers to its component`)
    }
  }
  const conflict = take.responses['409'].content['application/json'].examples
  t.same(Object.keys(conflict), ['ORDER_INVALID_STATUS', 'IDEMPOTENCY_IN_PROGRESS'])
  t.equal(conflict.ORDER_INVALID_STATUS.value.error.message, 'Cannot deliver an order that is paid.')
  const listOrders = doc.paths['/v1/orders'].get
  t.equal(listOrders.responses['401'].content['application/json'].examples.API_KEY_INVALID.value.error.message, 'The API key is missing, malformed, unknown or revoked.')
  t.equal((await app.inject({ method: 'GET', url: '/v1/orders' })).json().error.message, 'The API key is missing, malformed, unknown or revoked.', 'the message the service sends')
})
