// `npm run docs:examples`: records a real request and response of every
// operation, by running one shop's day against the service (embedded database,
// a throw-away data directory), into schemas/openapi-examples.json. The
// documents show them (lib/openapi-document.ts) and
// test/openapi/examples.test.ts holds each to its operation's schemas.
// The client's types carry the examples too: run `npm run client:generate` after.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:http'
import { buildApp } from '../app.js'
import { CannotSupply, deliveryHandler } from '../client/index.js'
import { loadConfig } from '../plugins/config.js'
import { todayIn } from '../domain/sales-stats.js'
import type { OperationExample } from '../lib/openapi-document.js'
import { images, multipartBody } from '../test/fixtures/images.js'
import { findOperation } from '../test/fixtures/openapi-drift.js'

const token = 'openapi-examples-token-0123456789'
const operator = { authorization: `Bearer ${token}` }
const dataDir = mkdtempSync(join(tmpdir(), 'seller-api-examples-'))
const config = loadConfig({},
  {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN: token,
    PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0,
    WEBHOOK_ALLOW_PRIVATE: true,
    WEBHOOK_ALLOW_HTTP: true,
    WEBHOOK_POLL_INTERVAL_MS: 50
  })
const app = await buildApp({ config })
const documents = [app.swagger(), app.internalSwagger()] as unknown as Array<{
  paths: Record<string, Record<string,
  { operationId: string }>>
}>
const examples: Record<string, OperationExample> = {}

/** The operation `method url` is, by the documents' path templates. */
function operationOf (method: string, url: string): { operationId: string, template: string } {
  for (const document of documents) {
    const found = findOperation(document, method, url)
    if (found) return { operationId: found.operation.operationId, template: found.template }
  }
  throw new Error(`no operation for ${method} ${url}`)
}

/** Sends a request and keeps it, with its answer, as its operation's example (the first success only). */
async function call (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, options: {
    headers?: Record<string, string>,
    body?: unknown,
    raw?: { payload: Buffer, headers: Record<string, string> }
  } = {}
) {
  const res = await app.inject({
    method,
    url,
    headers: { ...options.headers, ...options.raw?.headers },
    ...(options.raw
      ? { payload: options.raw.payload }
      : options.body === undefined ? {} : { payload: options.body as object })
  })
  if (res.statusCode >= 300 && res.statusCode !== 304) {
    throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  }
  const { operationId, template } = operationOf(method, url)
  const isJson = String(res.headers['content-type'] ?? '').startsWith('application/json')
  if (!examples[operationId]) {
    const path = new URL(url, 'http://x')
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
    const values = path.pathname.match(new RegExp('^' + template.replace(/\{[^}]+\}/g, '([^/]+)') + '$'))!.slice(1)
    examples[operationId] = {
      parameters: {
        ...Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i])])),
        ...Object.fromEntries(path.searchParams)
      },
      ...(options.body === undefined ? {} : { request: options.body }),
      response: { status: res.statusCode, ...(isJson ? { body: res.json() } : {}) }
    }
  }
  return isJson ? res.json().data : undefined
}

/** The order's delivery request once it has ended (the worker answers within a few polls). */
async function endedRequest (seller: Record<string, string>, orderId: string) {
  for (let i = 0; i < 200; i++) {
    const res = await app.inject({ method: 'GET', url: `/v1/orders/${orderId}/delivery-request`, headers: seller })
    if (res.statusCode === 200 && res.json().data.deliveryRequest.status !== 'pending') return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the delivery request of ${orderId} did not end`)
}

async function deliveryEndpointDay (seller: Record<string, string>, productId: string, emailFieldId: string) {
  let handler: ReturnType<typeof deliveryHandler> | undefined
  const server = createServer((req, res) => { handler!(req, res).catch(() => res.destroy()) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/deliver`
    const { secret } = await call('PUT', '/v1/delivery-endpoint', { headers: seller, body: { url } })
    handler = deliveryHandler(secret, (order) => {
      if (order.quantity > 1) throw new CannotSupply('one key an order')
      return ['HADES2-7KQ4M-XW9PL-3RT8C']
    })
    await call('GET', '/v1/delivery-endpoint', { headers: seller })
    await call('POST', '/v1/delivery-endpoint/test', { headers: seller, body: { productId, quantity: 1 } })
    await call('PATCH', `/v1/products/${productId}/stock`, { headers: seller, body: { autoDelivery: 'endpoint' } })
    const buyOf = (quantity: number) => call('POST', '/internal/v1/orders',
      {
        headers: operator,
        body: { productId, quantity, fieldValues: [{ fieldId: emailFieldId, value: 'buyer@example.com' }] }
      })
    const { order } = await buyOf(1)
    await endedRequest(seller, order.id)
    await call('GET', `/v1/orders/${order.id}/delivery-request`, { headers: seller })
    const { order: refused } = await buyOf(2)
    await endedRequest(seller, refused.id)
    await call('POST', `/v1/orders/${refused.id}/delivery-request/retry`, { headers: seller })
    await endedRequest(seller, refused.id)
    await call('POST', '/v1/delivery-endpoint/rotate-secret', { headers: seller })
    await call('DELETE', '/v1/delivery-endpoint', { headers: seller })
  } finally {
    server.close()
  }
}

try {
  await call('GET', '/healthz')
  await call('GET', '/readyz')
  const { shop } = await call('POST', '/internal/v1/shops', { headers: operator, body: { name: 'Pixel Keys' } })
  const { secret, apiKey } = await call('POST', `/internal/v1/shops/${shop.id}/api-keys`,
    { headers: operator, body: { name: 'fulfilment bot' } })
  const seller = { authorization: `Bearer ${secret}` }
  await call('GET', `/internal/v1/shops/${shop.id}/api-keys`, { headers: operator })
  const { rate: currencyRate } = await call('PUT', `/internal/v1/shops/${shop.id}/currency-rates/USD`,
    { headers: operator, body: { rate: 92.5 } })
  await call('POST', '/internal/v1/categories', {
    headers: operator,
    body: {
      pathRu: 'Игры / Ключи Epic Games',
      pathEn: 'games/epic-games-keys',
      filters: [{
        name: 'Region',
        type: 'buttons',
        affectsPrice: false,
        options: [{ label: 'Global' }, { label: 'Europe' }]
      }]
    }
  })
  const { categories } = await call('GET', '/v1/categories', { headers: seller })
  await call('GET', '/v1/currency-rates', { headers: seller })
  const media = await call('POST', '/v1/media',
    {
      headers: seller,
      raw: multipartBody([{ name: 'file', filename: 'cover.png', contentType: 'image/png', data: images.png }])
    })
  await call('GET', `/${media.filePath}`)
  const input = {
    categoryId: categories[0].id,
    title: 'Steam key: Hades II',
    description: 'Global activation key, delivered within minutes.',
    isActive: true,
    external: true,
    currencyRateId: currencyRate.id,
    price: 5.99,
    imageId: media.id,
    employeeReward: { type: 'percent', value: 5 },
    fields: [
      { type: 'text', label: 'Email for delivery', required: true, multiple: false, options: [] },
      {
        type: 'select',
        label: 'Edition',
        required: false,
        multiple: false,
        options: [{ label: 'Standard', price: 0 }, { label: 'Deluxe', price: 2.5 }]
      }
    ],
    filters: []
  }
  const { product } = await call('POST', '/v1/products',
    { headers: { ...seller, 'idempotency-key': 'create-hades-2' }, body: input })
  await call('GET', '/v1/products?page=1&limit=20', { headers: seller })
  await call('GET', `/v1/products/${product.id}`, { headers: seller })
  const { product: replaced } = await call('PUT', `/v1/products/${product.id}`,
    { headers: seller, body: { ...input, price: 6.49 } })
  const { endpoint } = await call('POST', '/v1/webhook-endpoints',
    {
      headers: seller,
      body: {
        url: 'https://bot.example.com/hooks',
        eventTypes: ['order.paid', 'message.created'],
        description: 'fulfilment bot'
      }
    })
  await call('GET', '/v1/webhook-endpoints', { headers: seller })
  await call('GET', `/v1/webhook-endpoints/${endpoint.id}`, { headers: seller })
  await call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`,
    { headers: seller, body: { description: 'fulfilment bot (eu)' } })
  await call('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { headers: seller })
  const email = replaced.fields.find((f: { type: string }) => f.type === 'text')
  const buy = () => call('POST', '/internal/v1/orders',
    {
      headers: operator,
      body: { productId: product.id, quantity: 1, fieldValues: [{ fieldId: email.id, value: 'buyer@example.com' }] }
    })
  // Chat rules (docs/chat-rules.md): a thank-you after delivery, a `!help` command.
  const { rule: thanks } = await call('POST', '/v1/chat-rules', {
    headers: { ...seller, 'idempotency-key': 'rule:thanks' },
    body: { name: 'Thank you', trigger: 'order.delivered', text: 'Thank you for order {{orderId}}! Enjoy the game.' }
  })
  const { rule: help } = await call('POST', '/v1/chat-rules', {
    headers: seller,
    body: {
      name: 'Help',
      trigger: 'message.keyword',
      keywords: ['!help', 'помощь'],
      cooldownSeconds: 60,
      text: 'Commands: !seller calls the seller. Your order: {{productTitle}} x{{quantity}}.'
    }
  })
  await call('PUT', `/v1/chat-rules/${thanks.id}`, {
    headers: seller,
    body: { name: 'Thank you', trigger: 'order.delivered', priority: 10, text: 'Thank you for order {{orderId}}!' }
  })
  const { order } = await buy()
  const { order: second } = await buy()
  await call('POST', '/v1/chat-rules/preview', {
    headers: seller, body: { trigger: 'order.paid', orderId: order.id, text: 'Order {{orderId}}: {{amount}} RUB' }
  })
  await call('GET', `/v1/chat-rules/${help.id}`, { headers: seller })
  await call('GET', '/v1/events?limit=10&wait=0', { headers: seller })
  await call('GET', '/v1/orders?status=paid&page=1&limit=20', { headers: seller })
  await call('GET', `/v1/orders/${order.id}`, { headers: seller })
  await call('POST', `/v1/orders/${order.id}/take`, { headers: { ...seller, 'idempotency-key': `take:${order.id}` } })
  await call('POST', `/internal/v1/orders/${order.id}/messages`,
    { headers: operator, body: { text: 'Hi! Is the key region-free?' } })
  await call('POST', `/v1/orders/${order.id}/messages`,
    {
      headers: { ...seller, 'idempotency-key': `answer:${order.id}` },
      body: { text: 'Yes, it activates worldwide. Your key is on its way.' }
    })
  await call('POST', `/internal/v1/orders/${order.id}/messages`, { headers: operator, body: { text: '!help' } })
  await call('GET', `/v1/orders/${order.id}/messages?limit=20`, { headers: seller })
  await call('POST', `/v1/orders/${order.id}/deliver`,
    { headers: { ...seller, 'idempotency-key': `deliver:${order.id}` }, body: { value: 'AAAAA-BBBBB-CCCCC' } })
  await call('POST', `/internal/v1/orders/${order.id}/confirm`, { headers: operator })
  await call('POST', `/v1/orders/${second.id}/cancel`,
    {
      headers: { ...seller, 'idempotency-key': `cancel:${second.id}` },
      body: { reason: 'Out of stock for this region.' }
    })
  await call('GET', `/internal/v1/shops/${shop.id}/ledger`, { headers: operator })
  await call('GET', '/v1/chat-rules', { headers: seller })
  await call('DELETE', `/v1/chat-rules/${help.id}`, { headers: seller })
  // The week's sales in Moscow: the confirmed order credited, the cancelled one refunded (docs/sales-stats.md).
  const today = todayIn('Europe/Moscow')
  const weekAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10)
  await call('GET', `/v1/stats/sales?from=${weekAgo}&to=${today}&groupBy=day&tz=Europe%2FMoscow`, { headers: seller })
  await call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { headers: seller })
  const { deliveries } = await call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=20`,
    { headers: seller })
  await call('POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${deliveries[0].id}/retry`, { headers: seller })
  // Stock: codes uploaded, switched on, one delivered at purchase, one taken back (docs/stock.md).
  await call('PATCH', `/v1/products/${product.id}/stock`,
    { headers: seller, body: { autoDelivery: 'stock', lowStockThreshold: 1 } })
  await call('POST', `/v1/products/${product.id}/stock/items`, {
    headers: { ...seller, 'idempotency-key': 'upload-2026-11-24' },
    body: { values: ['HADES-7Q2K-9XZP-44LM', 'HADES-3JD8-KW1C-77QA', 'HADES-M4RT-0PLE-21VX'] }
  })
  await buy()
  await call('GET', `/v1/products/${product.id}/stock`, { headers: seller })
  const { items } = await call('GET', `/v1/products/${product.id}/stock/items?status=available&limit=50`,
    { headers: seller })
  await call('POST', `/v1/products/${product.id}/stock/items/remove`, { headers: seller, body: { ids: [items[0].id] } })
  // Claims (docs/claims.md): a key reported and replaced from stock, one rejected, escalated and
  // refunded by the marketplace, one refunded by the shop.
  await call('POST', `/v1/products/${product.id}/stock/items`, {
    headers: seller,
    body: {
      values: ['HADES-8LQW-2MNB-50TY', 'HADES-K7VX-1PRD-93HE', 'HADES-Z0CJ-6WUA-18FN',
        'HADES-Q5TE-4YGB-62KS']
    }
  })
  const claimFor = async (text: string) => {
    const { order: bought } = await buy()
    return call('POST', `/internal/v1/orders/${bought.id}/claims`, {
      headers: { ...operator, 'idempotency-key': `claim:${bought.id}` },
      body: {
        reason: 'not_working',
        text,
        valueIndexes: [0]
      }
    })
  }
  const { claim: replacedClaim } = await claimFor('The key says it was already redeemed.')
  await call('GET', '/v1/claims?status=open&limit=50', { headers: seller })
  await call('GET', `/v1/claims/${replacedClaim.id}`, { headers: seller })
  await call('POST', `/v1/claims/${replacedClaim.id}/replace`,
    { headers: { ...seller, 'idempotency-key': `replace:${replacedClaim.id}` } })
  const { claim: rejectedClaim } = await claimFor('Activation fails with an error.')
  await call('POST', `/v1/claims/${rejectedClaim.id}/reject`, {
    headers: seller,
    body: {
      note: 'The key was activated on your account at 10:02.'
    }
  })
  await call('POST', `/internal/v1/claims/${rejectedClaim.id}/escalate`,
    { headers: operator, body: { text: 'I never activated it.' } })
  await call('POST', `/internal/v1/claims/${rejectedClaim.id}/resolve`,
    { headers: operator, body: { outcome: 'refund', note: 'Refunded after review.' } })
  const { claim: refundedClaim } = await claimFor('Wrong region.')
  await call('POST', `/v1/claims/${refundedClaim.id}/refund`, { headers: seller, body: { note: 'Sorry, refunded.' } })
  await call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { headers: seller })
  // Just-in-time delivery (docs/delivery-endpoint.md): an endpoint built on the
  // client's deliveryHandler on 127.0.0.1 supplies one order and cannot supply another.
  await deliveryEndpointDay(seller, product.id, email.id)
  await call('POST', `/v1/products/${product.id}/archive`, { headers: seller, body: { archived: true } })
  // The marketplace sends the seller to the portal (docs/portal.md), and later ends its sessions.
  const link = await call('POST', `/internal/v1/shops/${shop.id}/portal-links`,
    { headers: operator, body: { ttlSeconds: 600, locale: 'en' } })
  await app.inject({ method: 'GET', url: new URL(link.url).pathname + new URL(link.url).search })
  await call('POST', `/internal/v1/shops/${shop.id}/portal-sessions/revoke`, { headers: operator })
  await call('POST', `/internal/v1/shops/${shop.id}/api-keys/${apiKey.id}/revoke`, { headers: operator })
  const operationIds = documents.flatMap((d) =>
    Object.values(d.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)))
  const missing = operationIds.filter((id) => !examples[id])
  if (missing.length) throw new Error(`no example for ${missing.join(', ')}`)
  writeFileSync('schemas/openapi-examples.json', JSON.stringify(examples, null, 2) + '\n')
  console.log(`wrote schemas/openapi-examples.json: ${Object.keys(examples).length} operations`)
} finally {
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
}
