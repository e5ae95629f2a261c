// The database going away: requests get 503 SERVICE_UNAVAILABLE (no stack, no
// SQL), /readyz says not ready, and the app recovers by itself when it returns.
import t from 'tap'
import { fileDatabaseUrl, build, createShop } from '../helper.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'

t.test('database outage and recovery', async (t) => {
  const url = await fileDatabaseUrl()
  const target = new URL(url)
  const relay = await tcpRelay(target.hostname, Number(target.port || 5432))
  t.teardown(relay.cut)
  const app = await build(t, { DATABASE_URL: viaRelay(url, relay) })
  const shop = await createShop(app)
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })).statusCode, 200)

  await relay.cut()
  const down = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(down.statusCode, 503)
  t.same(down.json(), { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.' } })
  t.ok(down.headers['retry-after'])
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503)
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is fine')

  await relay.restore()
  const back = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(back.statusCode, 200, 'recovered without a restart')
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
})
