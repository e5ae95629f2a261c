// No secret reaches a log line at any level, from any library: API keys, the
// internal token, webhook secrets (whsec_…). Checked at LOG_LEVEL=trace on the
// log stream of a real app, over inject and a real socket, with Redis failing.
import { connect } from 'node:net'
import { Writable } from 'node:stream'
import t from 'tap'
import { buildApp, serverOptions } from '../../app.js'
import { testRedisUrl } from '../fixtures/databases.js'
import { images, multipartBody } from '../fixtures/images.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'
import { createShop, INTERNAL_TOKEN, internalHeaders, testConfig } from '../helper.js'

const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

function rawRequest (port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => { received += chunk })
    socket.on('close', () => resolve(received))
    socket.on('error', () => resolve(received))
    socket.end(bytes)
  })
}

t.test('secrets stay out of the logs', async (t) => {
  let logs = ''
  const stream = new Writable({ write (chunk, _encoding, done) { logs += chunk.toString(); done() } })
  const redis = new URL(testRedisUrl())
  const relay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  t.teardown(relay.cut)
  const config = await testConfig({ LOG_LEVEL: 'trace', REDIS_URL: viaRelay(testRedisUrl(), relay) })
  const app = await buildApp({ config }, { logger: { ...(serverOptions(config).logger as object), stream } })
  t.teardown(() => app.close())

  const shop = await createShop(app)
  const upload = multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }])
  const secretHeaders = { 'x-webhook-secret': WEBHOOK_SECRET }
  const requests = [
    { method: 'GET' as const, url: '/v1/categories', headers: shop.headers },
    { method: 'GET' as const, url: '/v1/currency-rates', headers: { 'x-api-key': shop.apiKey } },
    { method: 'GET' as const, url: '/v1/nowhere', headers: shop.headers },
    { method: 'POST' as const, url: '/v1/media', headers: { ...shop.headers, ...upload.headers, ...secretHeaders }, payload: upload.payload },
    { method: 'POST' as const, url: '/v1/media', headers: { 'x-api-key': shop.apiKey, ...upload.headers, ...secretHeaders }, payload: upload.payload },
    { method: 'POST' as const, url: '/internal/v1/shops', headers: { ...internalHeaders, 'content-type': 'application/json' }, payload: '{bad json' },
    { method: 'GET' as const, url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders },
    { method: 'GET' as const, url: '/internal/v1/nowhere', headers: internalHeaders }
  ]
  for (const request of requests) {
    const res = await app.inject(request)
    t.ok(res.statusCode < 500, `${request.method} ${request.url}: ${res.statusCode}`)
  }
  const created = await app.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders, payload: { name: 'logged?' } })
  const newSecret = created.json().data.secret

  // Requests Node itself refuses, carrying the key: their raw bytes must not be logged.
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  await rawRequest(port, `GET /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${shop.apiKey}\r\nX-Bad: a\u0001b\r\n\r\n`)
  await rawRequest(port, `GET /v1/categories HTTP/1.1\r\nHost: x\r\nX-API-Key: ${shop.apiKey}\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`)

  // Redis failing under an idempotent request: its errors are logged, its arguments are not.
  await relay.cut()
  const refused = await app.inject({ method: 'POST', url: '/v1/orders/00000000-0000-4000-8000-000000000000/cancel', headers: { ...shop.headers, 'idempotency-key': 'k' }, payload: { reason: WEBHOOK_SECRET } })
  t.equal(refused.statusCode, 503)

  t.ok(logs.includes('incoming request'), 'requests were logged at all')
  t.ok(logs.includes('Providing options to busboy'), 'the multipart plugin\'s trace line is there, redacted')
  t.ok(logs.includes('"reqId"'), 'log lines carry the request id')
  for (const secret of [shop.apiKey, newSecret, INTERNAL_TOKEN]) {
    t.notOk(logs.includes(secret), `secret ${secret.slice(0, 14)}… is not in the logs`)
  }
  t.notOk(logs.includes(shop.apiKey.slice(11)), 'not even the key without its prefix')
  t.notOk(/whsec_/.test(logs), 'no webhook secret')
})
