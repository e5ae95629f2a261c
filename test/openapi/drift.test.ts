// The drift check itself (test/fixtures/openapi-drift.ts): it must pass what the
// service really sends and flag every kind of difference from the document.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { driftProblems } from '../fixtures/openapi-drift.js'

t.test('the drift check flags a response that differs from the document', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const documents = { seller: app.swagger(), operator: app.internalSwagger() } as Record<string, Record<string, any>>
  const res = await app.inject({ method: 'GET', url: '/v1/orders?status=paid', headers: shop.headers })
  const real = { statusCode: res.statusCode, headers: res.headers, body: res.body }
  t.same(driftProblems(documents, 'GET', '/v1/orders?status=paid', real), [], 'a real response passes')

  const flagged = (change: Partial<typeof real>) => driftProblems(documents, 'GET', '/v1/orders', { ...real, ...change })
  t.match(flagged({ statusCode: 418 }), [/status not declared/])
  t.match(flagged({ headers: { ...real.headers, 'x-request-id': undefined } }), [/required header X-Request-Id missing/])
  t.match(flagged({ headers: { ...real.headers, 'ratelimit-remaining': 'many' } }), [/header RateLimit-Remaining/])
  t.match(flagged({ body: JSON.stringify({ success: true, data: { orders: [], total: 'none', page: 1, limit: 20 } }) }), [/body does not match/])
  t.match(flagged({ statusCode: 409, body: JSON.stringify({ success: false, error: { code: 'ORDER_INVALID_STATUS', message: 'x' } }) }), [/status not declared/])
  t.match(driftProblems(documents, 'POST', `/v1/orders/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/take`, {
    statusCode: 409, headers: real.headers, body: JSON.stringify({ success: false, error: { code: 'CURSOR_EXPIRED', message: 'x' } })
  }), [/body does not match/], 'an error code the operation does not list')
  t.match(flagged({ headers: { ...real.headers, 'content-type': 'text/html' } }), [/content type "text\/html" not declared/])
})
