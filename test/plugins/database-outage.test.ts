// The database going away: requests get 503 SERVICE_UNAVAILABLE (no stack, no
// SQL), /readyz says not ready, and the app recovers by itself when it returns.
import postgres from 'postgres'
import t from 'tap'
import { buildBehindDatabaseRelay, createShop } from '../helper.js'
import { act, buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'

t.test('database outage and recovery', async (t) => {
  const { app, relay } = await buildBehindDatabaseRelay(t)
  const shop = await createShop(app)
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })).statusCode, 200)

  await relay.cut()
  const down = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(down.statusCode, 503)
  t.same(down.json(), { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.' } })
  t.ok(down.headers['retry-after'])
  const notReady = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(notReady.statusCode, 503)
  t.same(notReady.json().error, {
    code: 'SERVICE_UNAVAILABLE',
    message: 'Not ready: database not reachable.',
    details: [{ path: 'database', message: 'is not reachable' }]
  }, '/readyz names the dependency that failed')
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is fine')

  await relay.restore()
  const back = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(back.statusCode, 200, 'recovered without a restart')
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
})

t.test('the connection dropping inside a transaction fails that request, not the process', async (t) => {
  const { app, relay, databaseUrl: url } = await buildBehindDatabaseRelay(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)

  // Hold the order's row so the take waits inside its transaction, then cut the line.
  const blocker = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => blocker.end({ timeout: 1 }))
  const held = blocker.begin(async (sql) => {
    await sql`select id from orders where id = ${order.id} for update`
    await new Promise((resolve) => setTimeout(resolve, 600))
  })
  await new Promise((resolve) => setTimeout(resolve, 100))
  const take = act(app, shop, order.id, 'take')
  await new Promise((resolve) => setTimeout(resolve, 200))
  await relay.cut()
  const failed = await take
  await held
  t.equal(failed.statusCode, 503, 'the request in the broken transaction fails cleanly')
  t.equal(failed.json().error.code, 'SERVICE_UNAVAILABLE')

  await new Promise((resolve) => setTimeout(resolve, 100))
  await relay.restore()
  const retried = await act(app, shop, order.id, 'take')
  t.equal(retried.statusCode, 200, 'the process is alive and the retry takes the order once')
  t.equal(retried.json().data.order.status, 'processing')
})
