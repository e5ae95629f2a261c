// The README's tour, and the seller operations around it, made with a client
// that @hey-api/openapi-ts generated from the published document
// (.ci/openapi-tools.mjs generates it into ./generated beside a copy of this
// file, type-checks both, then runs this through a validating proxy). The
// client is configured as its README suggests, `auth: key`: it sends the key in
// both schemes, which the service's "Authorization wins" makes harmless. The
// operator's calls (a shop, a buyer) go to the service directly: they are not
// in the seller document.
//
//   SELLER_API_URL (the proxy), SERVICE_URL and INTERNAL_TOKEN (the service itself)
// Prints `ok <step>` / `not ok <step>: why` per step.
import { createClient, createConfig } from './generated/client/index.js'
import * as api from './generated/sdk.gen.js'
import type { Product, ProductInput } from './generated/types.gen.js'

const sellerUrl = process.env.SELLER_API_URL!
const serviceUrl = process.env.SERVICE_URL!
const operator = { authorization: `Bearer ${process.env.INTERNAL_TOKEN}`, 'content-type': 'application/json' }
let failures = 0

interface Result<T> { data?: T, error?: unknown, response?: Response }

/**
 * The call's data; a failure, or a proxy's report of a request or response that breaks the document, fails the step.
 */
async function step<T> (what: string, call: Promise<Result<T>>, expectStatus?: number): Promise<T> {
  const { data, error, response } = await call
  const violations = response?.headers.get('sl-violations')
  const status = response?.status ?? 0
  const problem = violations
    ? `the proxy found violations: ${violations}`
    : (expectStatus ?? (response?.ok ? status : -1)) !== status
        ? `HTTP ${status} ${JSON.stringify(error ?? data).slice(0, 500)}`
        : null
  if (problem) {
    failures++
    console.log(`not ok ${what}: ${problem}`)
  } else console.log(`ok ${what}`)
  return data as T
}

async function asOperator<T> (method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(serviceUrl + path,
    { method, headers: operator, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()).data as T
}

const { shop } = await asOperator<{ shop: { id: string } }>('POST', '/internal/v1/shops', { name: 'Key Store' })
const { secret: key } = await asOperator<{ secret: string }>('POST', `/internal/v1/shops/${shop.id}/api-keys`,
  { name: 'tour' })
const client = createClient(createConfig({ baseUrl: sellerUrl, auth: key }))
const buy = (productId: string, fieldValues: Array<{ fieldId: string, value: string }> = []) =>
  asOperator<{ order: { id: string, status: string } }>('POST', '/internal/v1/orders',
    { productId, quantity: 1, fieldValues })

// A product, read back and PUT back: what a GET returned is a ProductInput once `active` is `isActive`.
const { data: { categories } } = await step('list categories', api.listCategories({ client }))
await step('list currency rates', api.listCurrencyRates({ client }))
const input: ProductInput = {
  categoryId: categories[0].id,
  title: 'Steam key: Hades II',
  description: 'Global key.',
  isActive: true,
  external: true,
  currencyRateId: '',
  price: 19.99,
  imageId: '',
  employeeReward: { type: 'percent', value: 0 },
  fields: [{ type: 'text', label: 'Email', required: true, multiple: false, options: [] }],
  filters: []
}
const created = await step('create a product',
  api.createProduct({ client, body: input, headers: { 'idempotency-key': 'tour-product' } }), 201)
const { data: { product } } = await step('get the product',
  api.getProduct({ client, path: { id: created.data.product.id } }))
const got: Product = product
const putBack: ProductInput = { ...got, isActive: got.active }
const replaced = await step('PUT back what the GET returned',
  api.replaceProduct({ client, path: { id: got.id }, body: putBack }))
if (JSON.stringify({ ...replaced.data.product, updatedAt: '' }) !== JSON.stringify({ ...got, updatedAt: '' })) {
  failures++
  console.log('not ok the PUT back changed nothing: it did')
}
await step('list products', api.listProducts({ client, query: { page: 1, limit: 20 } }))
await step('list products, reduced', api.listProducts({ client, query: { view: 'reduced' } }))
await step('a price of 1.14', api.replaceProduct({ client, path: { id: got.id }, body: { ...putBack, price: 1.14 } }))
const emailField = got.fields[0].id

// A buyer pays, and the feed says so.
const { data: { nextCursor } } = await step('events after=latest',
  api.listEvents({ client, query: { after: 'latest' } }))
const { order } = await buy(got.id, [{ fieldId: emailField, value: 'buyer@example.com' }])
const { data: { events } } = await step('events, long-polled',
  api.listEvents({ client, query: { after: nextCursor, wait: 5 } }))
if (events[0]?.type !== 'order.paid') {
  failures++
  console.log(`not ok the feed has order.paid: ${JSON.stringify(events).slice(0, 300)}`)
}

// Fulfil it by hand, and chat.
await step('list paid orders', api.listOrders({ client, query: { status: 'paid' } }))
await step('get the order', api.getOrder({ client, path: { id: order.id } }))
await step('take',
  api.takeOrder({ client, path: { id: order.id }, headers: { 'idempotency-key': `take-${order.id}` } }))
await step('deliver',
  api.deliverOrder({
    client,
    path: { id: order.id },
    body: { value: 'XXXX-YYYY-ZZZZ' },
    headers: { 'idempotency-key': `deliver-${order.id}` }
  }))
await step('take again: 409', api.takeOrder({ client, path: { id: order.id } }), 409)
await asOperator('POST', `/internal/v1/orders/${order.id}/messages`, { text: 'Which region is it for?' })
await step('post a message',
  api.postOrderMessage({ client, path: { id: order.id }, body: { text: 'Global: it works everywhere.' } }), 201)
await step('read the chat', api.listOrderMessages({ client, path: { id: order.id } }))
const { order: second } = await buy(got.id, [{ fieldId: emailField, value: 'buyer@example.com' }])
await step('cancel without a body', api.cancelOrder({ client, path: { id: second.id } }))
await step('an unknown order: 404', api.getOrder({ client, path: { id: '00000000-0000-4000-8000-000000000000' } }), 404)

// Stock, instead of a bot.
await step('upload stock',
  api.addStockItems({
    client,
    path: { id: got.id },
    body: { values: ['KEY-0001-AAAA', 'KEY-0002-BBBB', 'KEY-0003-CCCC'] }
  }), 201)
await step('switch to stock', api.updateStock({ client, path: { id: got.id }, body: { autoDelivery: 'stock' } }))
const delivered = await buy(got.id, [{ fieldId: emailField, value: 'buyer@example.com' }])
if (delivered.order.status !== 'awaiting_confirmation') {
  failures++
  console.log(`not ok delivered in the purchase itself: ${delivered.order.status}`)
}
await step('get the stock', api.getStock({ client, path: { id: got.id } }))
const { data: { items } } = await step('list stock items',
  api.listStockItems({ client, path: { id: got.id }, query: { status: 'available', limit: 1 } }))
await step('remove a stock item', api.removeStockItems({ client, path: { id: got.id }, body: { ids: [items[0].id] } }))
await step('back to the bot', api.updateStock({ client, path: { id: got.id }, body: { autoDelivery: 'off' } }))

// Webhooks and the delivery endpoint.
const { data: { endpoint } } = await step('create a webhook endpoint',
  api.createWebhookEndpoint({
    client,
    body: { url: 'https://bot.example.com/hooks', eventTypes: ['order.paid'] }
  }), 201)
await step('list webhook endpoints', api.listWebhookEndpoints({ client }))
await step('update a webhook endpoint',
  api.updateWebhookEndpoint({ client, path: { id: endpoint.id }, body: { enabled: false } }))
await step('list its deliveries', api.listWebhookDeliveries({ client, path: { id: endpoint.id } }))
await step('delete it', api.deleteWebhookEndpoint({ client, path: { id: endpoint.id } }))
await step('put a delivery endpoint',
  api.putDeliveryEndpoint({ client, body: { url: 'https://supplier.example.com/deliver' } }))
await step('get it', api.getDeliveryEndpoint({ client }))
await step('delete the delivery endpoint', api.deleteDeliveryEndpoint({ client }))
await step('archive the product', api.archiveProduct({ client, path: { id: got.id }, body: { archived: true } }))

console.log(failures === 0 ? 'tour: every step ok' : `tour: ${failures} failed`)
process.exitCode = failures === 0 ? 0 : 1
