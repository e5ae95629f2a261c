// Logs never contain an API key or the internal token, whatever the request.
import { Writable } from 'node:stream'
import t from 'tap'
import { buildApp, serverOptions } from '../app.js'
import { createShop, INTERNAL_TOKEN, internalHeaders, testConfig } from './helper.js'

t.test('secrets stay out of the logs', async (t) => {
  let logs = ''
  const stream = new Writable({ write (chunk, _encoding, done) { logs += chunk.toString(); done() } })
  const config = await testConfig({ LOG_LEVEL: 'trace' })
  const app = await buildApp({ config }, { logger: { ...(serverOptions(config).logger as object), stream } })
  t.teardown(() => app.close())

  const shop = await createShop(app)
  const requests = [
    { method: 'GET' as const, url: '/v1/categories', headers: shop.headers },
    { method: 'GET' as const, url: '/v1/currency-rates', headers: { 'x-api-key': shop.apiKey } },
    { method: 'GET' as const, url: '/v1/nowhere', headers: shop.headers },
    { method: 'POST' as const, url: '/internal/v1/shops', headers: { ...internalHeaders, 'content-type': 'application/json' }, payload: '{bad json' },
    { method: 'GET' as const, url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders }
  ]
  for (const request of requests) await app.inject(request)
  const created = await app.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders, payload: { name: 'logged?' } })
  const newSecret = created.json().data.secret

  t.ok(logs.includes('incoming request'), 'requests were logged at all')
  t.ok(logs.includes('"reqId"'), 'log lines carry the request id')
  for (const secret of [shop.apiKey, newSecret, INTERNAL_TOKEN]) {
    t.notOk(logs.includes(secret), `secret ${secret.slice(0, 14)}… is not in the logs`)
  }
})
