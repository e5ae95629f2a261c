// The envelope on every failure: unknown routes, bad JSON, oversized bodies,
// wrong content types, NUL characters, malformed ids; and request ids.
import { connect } from 'node:net'
import t from 'tap'
import { build, createShop, internalHeaders } from '../helper.js'

/** Sends raw bytes to a listening app; resolves with everything it answers before closing. */
function rawRequest (port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => { received += chunk })
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
    socket.end(bytes)
  })
}

t.test('failures use the envelope', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)

  t.test('unknown route: 404 NOT_FOUND', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/v1/nothing-here', headers: shop.headers })
    t.equal(res.statusCode, 404)
    t.match(res.json(), { success: false, error: { code: 'NOT_FOUND', message: String } })
    t.ok(res.headers['ratelimit-remaining'], 'an unknown /v1 route still carries the rate-limit headers')
    const anonymous = await app.inject({ method: 'GET', url: '/v1/nothing-here' })
    t.equal(anonymous.statusCode, 401, 'and needs a key like every /v1 route')
    const root = await app.inject({ method: 'DELETE', url: '/whatever' })
    t.equal(root.json().error.code, 'NOT_FOUND')
  })

  t.test('malformed JSON: 400 VALIDATION_ERROR, nothing created', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/internal/v1/shops', headers: { ...internalHeaders, 'content-type': 'application/json' }, payload: '{"name": "x",'
    })
    t.equal(res.statusCode, 400)
    t.match(res.json(), { success: false, error: { code: 'VALIDATION_ERROR', message: /not valid JSON/ } })
  })

  t.test('prototype poisoning is refused', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/internal/v1/shops', headers: { ...internalHeaders, 'content-type': 'application/json' }, payload: '{"name":"x","__proto__":{"admin":true}}'
    })
    t.equal(res.statusCode, 400)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  })

  t.test('oversized body: 413 VALIDATION_ERROR', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/internal/v1/shops',
      headers: { ...internalHeaders, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(8 * 1024 * 1024 + 10) })
    })
    t.equal(res.statusCode, 413)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  })

  t.test('wrong content type: 400 VALIDATION_ERROR', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/internal/v1/shops', headers: { ...internalHeaders, 'content-type': 'text/plain' }, payload: 'name=x'
    })
    t.equal(res.statusCode, 400)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  })

  t.test('schema failures list every problem with its path', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/internal/v1/categories',
      headers: internalHeaders,
      payload: { pathRu: '', pathEn: 'Not A Slug', filters: [{ name: 'x', type: 'dropdown', affectsPrice: 'yes', options: [] }] }
    })
    t.equal(res.statusCode, 400)
    const body = res.json()
    t.equal(body.error.code, 'VALIDATION_ERROR')
    const paths = body.error.details.map((d: { path: string }) => d.path)
    for (const path of ['body.pathRu', 'body.pathEn', 'body.filters.0.type', 'body.filters.0.affectsPrice', 'body.filters.0.options']) {
      t.ok(paths.includes(path), `${path} reported`)
    }
  })

  t.test('a JSON string is not coerced into a number or boolean in a body', async (t) => {
    const res = await app.inject({ method: 'PUT', url: `/internal/v1/shops/${shop.shopId}/currency-rates/USD`, headers: internalHeaders, payload: { rate: '90' } })
    t.equal(res.statusCode, 400)
    t.match(res.json().error.details, [{ path: 'body.rate' }])
  })

  t.test('NUL characters are refused with 400, other Unicode round-trips', async (t) => {
    const nul = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name: 'bad\u0000name' } })
    t.equal(nul.statusCode, 400)
    t.match(nul.json().error, { code: 'VALIDATION_ERROR', details: [{ path: 'body.name' }] })
    const name = 'Магазин 🎮 «ключи» \u200b ﷽'
    const ok = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name } })
    t.equal(ok.statusCode, 201)
    t.equal(ok.json().data.shop.name, name)
  })

  t.test('deeply nested bodies are refused, whatever they hold', async (t) => {
    const deep = (inner: string) => `{"name":"x","a":${'['.repeat(20000)}${inner}${']'.repeat(20000)}}`
    for (const inner of ['"\\u0000"', '"fine"']) {
      const res = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: { ...internalHeaders, 'content-type': 'application/json' }, payload: deep(inner) })
      t.equal(res.statusCode, 400, inner)
      t.match(res.json().error, { code: 'VALIDATION_ERROR', message: /nested deeper than 32 levels|NUL/ })
    }
    const res = await app.inject({ method: 'POST', url: '/v1/products', headers: { ...shop.headers, 'content-type': 'application/json', 'idempotency-key': 'deep' }, payload: deep('1') })
    t.equal(res.statusCode, 400, 'also where the body would be fingerprinted')
  })

  t.test('odd query values: 400, never 500', async (t) => {
    const order = '6f1c0000-0000-4000-8000-000000000000'
    for (const url of [
      '/v1/orders?page=99999999999999999999', '/v1/orders?page=1000001', '/v1/products?page=99999999999999999999',
      '/v1/orders?page=0', '/v1/orders?limit=abc', '/v1/orders?limit=101', '/v1/orders?status=PAID',
      `/v1/orders/${order}/messages?cursor=0000-01-01T00:00:00Z`, `/v1/orders/${order}/messages?cursor=yesterday`
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: shop.headers })
      t.equal(res.statusCode, 400, url)
      t.equal(res.json().error.code, 'VALIDATION_ERROR')
    }
  })

  t.test('only JSON bodies: text/plain is a 400, not a body', async (t) => {
    const res = await app.inject({
      method: 'POST', url: '/v1/orders/6f1c0000-0000-4000-8000-000000000000/take', headers: { ...shop.headers, 'content-type': 'text/plain' }, payload: 'hi'
    })
    t.equal(res.statusCode, 400)
    t.match(res.json().error, { code: 'VALIDATION_ERROR', message: /Content-Type/ })
  })

  t.test('malformed path ids are 404, never 500', async (t) => {
    for (const id of ['not-a-uuid', '1', "x' or 1=1 --", '%00']) {
      const res = await app.inject({ method: 'POST', url: `/internal/v1/shops/${encodeURIComponent(id)}/api-keys`, headers: internalHeaders, payload: { name: 'k' } })
      t.equal(res.statusCode, 404, id)
      t.equal(res.json().error.code, 'ORDER_NOT_FOUND')
    }
  })

  t.test('ids Postgres would refuse, over-long and undecodable paths: envelopes, never 500', async (t) => {
    const cases: Array<[string, number, string]> = [
      ['/v1/orders/urn:uuid:6f1c0000-0000-4000-8000-000000000000', 404, 'ORDER_NOT_FOUND'],
      ['/v1/products/urn:uuid:6f1c0000-0000-4000-8000-000000000000', 404, 'ORDER_NOT_FOUND'],
      [`/v1/orders/${'a'.repeat(600)}`, 404, 'NOT_FOUND'],
      ['/v1/orders/%E0%A4%A', 400, 'VALIDATION_ERROR']
    ]
    for (const [url, status, code] of cases) {
      const res = await app.inject({ method: 'GET', url, headers: shop.headers })
      t.equal(res.statusCode, status, url.slice(0, 40))
      t.equal(res.json().error.code, code)
      t.ok(res.headers['x-request-id'])
    }
  })

  t.test('requests Node itself refuses (bad header, headers too large) get the envelope and a request id', async (t) => {
    const server = await build(t)
    await server.listen({ port: 0, host: '127.0.0.1' })
    const { port } = server.server.address() as { port: number }
    const cases: Array<[string, string, number]> = [
      ['a bad header character', `GET /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: ${shop.headers.authorization}\r\nX-Bad: a\u0001b\r\n\r\n`, 400],
      ['headers over 16 KB', `GET /v1/categories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 431],
      ['not HTTP at all', 'HELLO\r\n\r\n', 400]
    ]
    for (const [name, bytes, status] of cases) {
      const answer = await rawRequest(port, bytes)
      t.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), name)
      t.match(answer, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i, `${name}: X-Request-Id`)
      t.match(answer, /\r\ncontent-type: application\/json/i, `${name}: JSON`)
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
      t.match(body, { success: false, error: { code: 'VALIDATION_ERROR', message: String } }, `${name}: the envelope`)
    }
  })

  t.test('X-Request-Id: a sane incoming id is kept, anything else replaced', async (t) => {
    const kept = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } })
    t.equal(kept.headers['x-request-id'], 'trace-abc.123')
    const replaced = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces <script>' } })
    t.match(replaced.headers['x-request-id'], /^[0-9a-f-]{36}$/)
    const onError = await app.inject({ method: 'GET', url: '/v1/categories' })
    t.ok(onError.headers['x-request-id'], 'errors carry it too')
  })
})
