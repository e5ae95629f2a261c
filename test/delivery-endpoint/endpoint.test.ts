// /v1/delivery-endpoint through HTTP (docs/delivery-endpoint.md): create or
// replace, read, rotate, delete, the address rules, the webhook routes leaving it
// out, the new event kind in `types` / `eventTypes`, and the test call against a
// real receiver: signed, `test: true`, judged in words, nothing stored.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import { feed, localJustInTime, putDeliveryEndpoint, valuesAnswer, verifiedRequest } from '../fixtures/delivery-endpoint.js'

t.test('create, replace, read, rotate, delete', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url = '', payload?: object) =>
    app.inject({ method, url: `/v1/delivery-endpoint${url}`, headers: shop.headers, ...(payload ? { payload } : {}) })

  for (const [method, url] of [['GET', ''], ['DELETE', ''], ['POST', '/rotate-secret']] as const) {
    const res = await call(method, url)
    t.equal(res.statusCode, 404, `${method} ${url} with none`)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  const created = await putDeliveryEndpoint(app, shop, 'http://127.0.0.1:7000/deliver')
  t.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.equal(created.deliveryEndpoint.url, 'http://127.0.0.1:7000/deliver')
  const replaced = await putDeliveryEndpoint(app, shop, 'http://127.0.0.1:7001/deliver')
  t.notOk('secret' in replaced, 'the secret only when first created')
  t.equal(replaced.deliveryEndpoint.createdAt, created.deliveryEndpoint.createdAt)
  t.same((await call('GET')).json().data.deliveryEndpoint, replaced.deliveryEndpoint)

  const rotated = await call('POST', '/rotate-secret')
  t.equal(rotated.statusCode, 200)
  t.match(rotated.json().data.secret, /^whsec_/)
  t.not(rotated.json().data.secret, created.secret)

  // Not a webhook endpoint: not listed, not counted in their limit of 10.
  t.same((await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: shop.headers })).json().data.endpoints, [])
  for (let i = 0; i < 10; i++) await createEndpoint(app, shop, { url: `http://127.0.0.1:7100/hook${i}` })

  const deleted = await call('DELETE')
  t.equal(deleted.statusCode, 200)
  t.equal(deleted.json().data.deliveryEndpoint.url, 'http://127.0.0.1:7001/deliver')
  t.equal((await call('GET')).statusCode, 404)
  t.ok((await putDeliveryEndpoint(app, shop, 'http://127.0.0.1:7002/deliver')).secret, 'a new endpoint, a new secret')
})

t.test('the url follows the webhook address rules', async (t) => {
  const app = await build(t, { WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: false })
  const shop = await createShop(app)
  for (const url of ['http://example.com/x', 'https://127.0.0.1/x', 'https://10.0.0.8/x', 'https://[::1]/x', 'https://user:pw@example.com/x', 'not a url']) {
    const res = await app.inject({ method: 'PUT', url: '/v1/delivery-endpoint', headers: shop.headers, payload: { url } })
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
  const missing = await app.inject({ method: 'PUT', url: '/v1/delivery-endpoint', headers: shop.headers, payload: {} })
  t.equal(missing.statusCode, 400)
  t.equal((await app.inject({ method: 'GET', url: '/v1/delivery-endpoint', headers: shop.headers })).statusCode, 404, 'nothing saved')
  const ok = await app.inject({ method: 'PUT', url: '/v1/delivery-endpoint', headers: shop.headers, payload: { url: 'https://Example.com/deliver' } })
  t.equal(ok.json().data.deliveryEndpoint.url, 'https://example.com/deliver', 'normalised')
})

t.test('order.delivery_failed is a kind of the feed and of webhooks', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const res = await app.inject({ method: 'GET', url: '/v1/events?types=order.delivery_failed', headers: shop.headers })
  t.equal(res.statusCode, 200)
  const endpoint = await createEndpoint(app, shop, { url: 'http://127.0.0.1:7200/hook', eventTypes: ['order.delivery_failed'] })
  t.same(endpoint.endpoint.eventTypes, ['order.delivery_failed'])
})

t.test('the test call: a real signed request, the answer judged, nothing stored, values never returned', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const receiver = await startReceiver(t)
  const product = await createProduct(app, shop)
  const foreign = await createProduct(app, other)
  const test = (payload: object, who = shop) => app.inject({ method: 'POST', url: '/v1/delivery-endpoint/test', headers: who.headers, payload })

  const none = await test({ productId: product.id })
  t.equal(none.statusCode, 404)
  t.equal(none.json().error.code, 'NOT_FOUND')

  const { secret } = await putDeliveryEndpoint(app, shop, receiver.url)
  receiver.answer = () => valuesAnswer(['SECRET-1', 'SECRET-2', 'SECRET-3'])
  const ok = await test({ productId: product.id, quantity: 3 })
  t.equal(ok.statusCode, 200)
  t.match(ok.json().data.result, { ok: true, statusCode: 200, valuesCount: 3, problems: [] })
  t.type(ok.json().data.result.durationMs, 'number')
  t.notMatch(ok.body, /SECRET-/, 'the values are never returned')
  const body = verifiedRequest(secret!, receiver.attempts[0])
  t.equal(body.type, 'order.delivery_requested')
  t.equal(body.data.test, true)
  t.match(body.data.order, { status: 'paid', productId: product.id, quantity: 3, productTitle: product.title })

  await test({ productId: product.id })
  t.not(receiver.attempts[1].webhookId, receiver.attempts[0].webhookId, 'a fresh webhook-id each time')
  t.equal(verifiedRequest(secret!, receiver.attempts[1]).data.order.quantity, 1, 'quantity 1 by default')

  const cases: Array<[(res: any) => void, RegExp]> = [
    [(res) => res.writeHead(500).end(), /HTTP 500/],
    [(res) => res.writeHead(200).end('<html>'), /not JSON/],
    [(res) => res.writeHead(200).end('[1]'), /not a JSON object/],
    [(res) => res.writeHead(200).end('{"codes": ["A"]}'), /no "values" array/],
    [(res) => res.writeHead(200).end('{"values": []}'), /empty; give 1 to 100/],
    [(res) => res.writeHead(200).end(JSON.stringify({ values: Array.from({ length: 101 }, (_, i) => `V${i}`) })), /101 values; at most 100/],
    [(res) => res.writeHead(200).end(JSON.stringify({ values: ['x'.repeat(10_001)] })), /longer than 10000/],
    [(res) => res.writeHead(409).end(), /cannot supply/],
    [(res) => res.writeHead(301, { location: '/elsewhere' }).end(), /redirects are not followed/]
  ]
  for (const [answer, problem] of cases) {
    receiver.answer = () => answer
    const res = await test({ productId: product.id })
    t.equal(res.statusCode, 200)
    t.equal(res.json().data.result.ok, false)
    t.match(res.json().data.result.problems.join(' '), problem)
  }
  const counted = await test({ productId: product.id })
  t.equal(counted.json().data.result.statusCode, 301)

  // After a rotation both secrets sign for 24 hours.
  const rotated = (await app.inject({ method: 'POST', url: '/v1/delivery-endpoint/rotate-secret', headers: shop.headers })).json().data.secret
  receiver.answer = () => valuesAnswer(['K'])
  t.equal((await test({ productId: product.id })).json().data.result.ok, true)
  const signed = receiver.attempts.at(-1)!
  t.equal(String(signed.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the overlap')
  t.equal(verifiedRequest(rotated, signed).data.test, true, 'verifies with the new secret')
  t.equal(verifiedRequest(secret!, signed).data.test, true, 'and with the previous one')

  receiver.answer = () => 'hang'
  await receiver.close()
  const unreachable = await test({ productId: product.id })
  t.match(unreachable.json().data.result, { ok: false, statusCode: null })
  t.match(unreachable.json().data.result.problems[0], /refused|closed|reset/)

  t.equal((await test({ productId: foreign.id })).json().error.code, 'ORDER_NOT_FOUND', 'another shop\'s product')
  t.equal((await test({ productId: product.id, quantity: 1001 })).statusCode, 400)
  t.equal((await test({ productId: product.id, quantity: 0 })).statusCode, 400)
  t.equal((await test({})).statusCode, 400)

  // Nothing stored: no order, no event.
  t.same(await feed(app, shop), [])
  const orders = await app.inject({ method: 'GET', url: '/v1/orders?status=paid,processing,awaiting_confirmation,completed,cancelled', headers: shop.headers })
  t.equal(orders.json().data.total, 0)
})
