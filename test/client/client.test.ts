// The typed client (client/) against a listening service: the envelope
// unwrapped or a typed error, the Idempotency-Key kept across a retry, 429
// retried after Retry-After, the events feed resumed from a stored cursor, and
// webhook signatures checked.
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { addStock, createSellerClient, followEvents, productInput, SellerApiError, unwrap, verifyWebhook } from '../../client/index.js'
import { build, createShop } from '../helper.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'

async function listening (t: Parameters<typeof build>[0], overrides: Parameters<typeof build>[1] = {}) {
  const app = await build(t, overrides)
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const shop = await createShop(app)
  return { app, baseUrl, shop }
}

/** A fetch that sends everything to the service and remembers what it sent and got. */
function recordingFetch (rewrite?: (attempt: number, response: Response) => Promise<Response>) {
  const seen: Array<{ method: string, path: string, idempotencyKey: string | null, status: number, replayed: string | null }> = []
  const send = async (request: Request) => {
    const idempotencyKey = request.headers.get('idempotency-key')
    let response = await fetch(request)
    seen.push({ method: request.method, path: new URL(request.url).pathname, idempotencyKey, status: response.status, replayed: response.headers.get('idempotency-replayed') })
    if (rewrite) response = await rewrite(seen.length, response)
    return response
  }
  return { seen, fetch: send as typeof fetch }
}

t.test('unwrap gives the data; a failure is a SellerApiError with code, status and request id', async (t) => {
  const { baseUrl, shop } = await listening(t)
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey })
  const { orders, total } = await unwrap(seller.GET('/v1/orders', { params: { query: { status: 'paid' } } }))
  t.same(orders, [])
  t.equal(total, 0)
  const err = await unwrap(seller.GET('/v1/orders/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } })).catch((e: unknown) => e)
  t.ok(err instanceof SellerApiError)
  t.match(err, { status: 404, code: 'ORDER_NOT_FOUND', requestId: /\S+/ })
  const denied = createSellerClient({ baseUrl, apiKey: 'service_sk_' + 'x'.repeat(40) })
  await t.rejects(unwrap(denied.GET('/v1/orders', {})), { status: 401, code: 'API_KEY_INVALID' })
})

t.test('a take whose response was lost is retried with the same Idempotency-Key and acts once', async (t) => {
  const { app, baseUrl, shop } = await listening(t)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  // The first answer is lost on the way back (a 503 from a proxy, say): the take itself went through.
  const recorder = recordingFetch(async (attempt, response) => attempt === 1 ? new Response(null, { status: 503, headers: { 'retry-after': '0' } }) : response)
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey, fetch: recorder.fetch })
  const { order: taken } = await unwrap(seller.POST('/v1/orders/{id}/take', { params: { path: { id: order.id } } }))
  t.equal(taken.status, 'processing')
  t.equal(recorder.seen.length, 2, 'one retry')
  t.match(recorder.seen[0].idempotencyKey, /^[0-9a-f-]{36}$/, 'the client added a key')
  t.equal(recorder.seen[1].idempotencyKey, recorder.seen[0].idempotencyKey, 'the retry carried the same key')
  t.equal(recorder.seen[1].replayed, 'true', 'the service answered the retry with the first response')
  const ledgerless = await unwrap(seller.GET('/v1/orders/{id}', { params: { path: { id: order.id } } }))
  t.equal(ledgerless.order.status, 'processing')
})

t.test('a balancer\'s 502 is retried for a keyed call, not for an unkeyed POST', async (t) => {
  const { app, baseUrl, shop } = await listening(t)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  // The instance behind the balancer died after the take committed: the balancer answers 502.
  const recorder = recordingFetch(async (attempt, response) => attempt === 1 ? new Response('Bad Gateway', { status: 502 }) : response)
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey, fetch: recorder.fetch })
  const { order: taken } = await unwrap(seller.POST('/v1/orders/{id}/take', { params: { path: { id: order.id } } }))
  t.equal(taken.status, 'processing')
  t.equal(recorder.seen.length, 2, 'one retry, with the same key')
  t.equal(recorder.seen[1].replayed, 'true')
  const unkeyed = recordingFetch(async () => new Response('Bad Gateway', { status: 502 }))
  const api = createSellerClient({ baseUrl, apiKey: shop.apiKey, fetch: unkeyed.fetch })
  await t.rejects(unwrap(api.POST('/v1/webhook-endpoints', { body: { url: 'https://example.com/hooks' } })), { status: 502, code: 'INTERNAL_ERROR' })
  t.equal(unkeyed.seen.length, 1, 'a POST without a key is not repeated')
})

t.test('a proxy\'s error body with a numeric code gives a SellerApiError whose code is a string', async (t) => {
  const { baseUrl, shop } = await listening(t)
  // A gateway in front of the service answers in its own error format (Google's, here), not the envelope.
  const gatewayBody = { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE', details: 'none' } }
  const gateway = recordingFetch(async () => Response.json(gatewayBody, { status: 503 }))
  const api = createSellerClient({ baseUrl, apiKey: shop.apiKey, fetch: gateway.fetch, retry: { attempts: 1 } })
  const err = await unwrap(api.GET('/v1/orders', { params: { query: { status: 'paid' } } })).catch((e: unknown) => e) as SellerApiError
  t.ok(err instanceof SellerApiError)
  t.match(err, { status: 503, code: 'INTERNAL_ERROR', message: 'The service is currently unavailable.', details: [] })
  t.type(err.code, 'string')
  t.equal(err.code.startsWith('INTERNAL'), true, 'string methods work on it')
})

t.test('a 429 is waited out (Retry-After) and retried', async (t) => {
  const { baseUrl, shop } = await listening(t, { RATE_LIMIT_MAX: 2, RATE_LIMIT_WINDOW_MS: 1000 })
  const recorder = recordingFetch()
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey, fetch: recorder.fetch, retry: { attempts: 5 } })
  for (let i = 0; i < 3; i++) await unwrap(seller.GET('/v1/categories', {}))
  t.ok(recorder.seen.some((r) => r.status === 429), 'the limit was hit')
  t.equal(recorder.seen.filter((r) => r.status === 200).length, 3, 'every call succeeded in the end')
})

t.test('the events iterator resumes from a stored cursor', async (t) => {
  const { app, baseUrl, shop } = await listening(t)
  const product = await createProduct(app, shop)
  const first = await buy(app, product)
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey })
  const next = await followEvents(seller, { limit: 1, wait: 0 }).next()
  const page = next.done ? undefined : next.value
  t.same(page?.events.map((e) => e.type === 'order.paid' && e.data.order.id), [first.id])
  const cursor = page?.nextCursor
  const second = await buy(app, product)
  const stop = new AbortController()
  const seen: string[] = []
  for await (const page of followEvents(seller, { after: cursor, wait: 1, signal: stop.signal })) {
    for (const event of page.events) if (event.type === 'order.paid') seen.push(event.data.order.id)
    stop.abort()
  }
  t.same(seen, [second.id], 'only what came after the cursor')
})

t.test('webhook signatures: valid, tampered, too old', async (t) => {
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64')
  const signer = new Webhook(secret)
  const body = JSON.stringify({ type: 'order.paid', timestamp: new Date().toISOString(), data: { order: { id: 'x' } } })
  const sign = (at: Date) => ({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign('msg_1', at, body) })
  const event = verifyWebhook(secret, body, sign(new Date()))
  t.equal(event.type, 'order.paid')
  t.throws(() => verifyWebhook(secret, body.replace('order.paid', 'order.taken'), sign(new Date())), 'a changed body fails')
  t.throws(() => verifyWebhook(secret, body, sign(new Date(Date.now() - 10 * 60_000))), 'a ten-minute-old delivery fails')
})

t.test('productInput: a GET product PUT back (active renamed to isActive) comes back the same', async (t) => {
  const { app, baseUrl, shop } = await listening(t)
  const created = await createProduct(app, shop, { isActive: false })
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey })
  const path = { params: { path: { id: created.id } } }
  const { product } = await unwrap(seller.GET('/v1/products/{id}', path))
  const asGot = await seller.PUT('/v1/products/{id}', { ...path, body: product as never })
  t.equal(asGot.response.status, 400, 'the GET body as it is lacks isActive')
  const { product: same } = await unwrap(seller.PUT('/v1/products/{id}', { ...path, body: productInput(product) }))
  t.same(same, { ...product, updatedAt: same.updatedAt }, 'the same product comes back')
  const { product: changed } = await unwrap(seller.PUT('/v1/products/{id}', { ...path, body: productInput(product, { isActive: true, title: 'Renamed' }) }))
  t.equal(changed.active, true)
  t.equal(changed.title, 'Renamed')
})

t.test('addStock sends a big list in calls of 10 000, each with its own Idempotency-Key', async (t) => {
  const { baseUrl, shop, app } = await listening(t, { VALUES_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') })
  const product = await createProduct(app, shop)
  const { seen, fetch } = recordingFetch()
  const seller = createSellerClient({ baseUrl, apiKey: shop.apiKey, fetch })
  const values = Array.from({ length: 20_005 }, (_, i) => `CODE-${i}`)
  const result = await addStock(seller, product.id, [...values, 'CODE-7'])
  t.match(result, { added: 20_005, duplicates: 1, filledOrders: 0, stock: { available: 20_005 } })
  const calls = seen.filter((s) => s.path.endsWith('/stock/items'))
  t.equal(calls.length, 3)
  t.equal(new Set(calls.map((c) => c.idempotencyKey)).size, 3)
})
