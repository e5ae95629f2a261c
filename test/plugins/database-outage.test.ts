// Postgres going away, as fault injection through a TCP relay (cut: every
// connection dropped, the port refusing), under concurrent requests:
// - while it is away, every request that needs it gets 503 SERVICE_UNAVAILABLE
//   with Retry-After within 1 s (the breaker refuses at once after the first
//   failures); /readyz names the database; /healthz stays up;
// - after it is back, requests succeed again within 2 s, without a restart.
// Bounds asserted with 3x margins; the measured figures go to docs/reliability.md.
import { setTimeout as pause } from 'node:timers/promises'
import postgres from 'postgres'
import t from 'tap'
import { buildBehindDatabaseRelay, createShop } from '../helper.js'
import { act, buy } from '../fixtures/orders.js'
import { slowest, startLoad } from '../fixtures/load.js'
import { createProduct } from '../fixtures/products.js'

const UNAVAILABLE = { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.' } }

t.test('outage under load: fast 503s, then recovery without a restart', async (t) => {
  const { app, relay } = await buildBehindDatabaseRelay(t, { RATE_LIMIT_MAX: 1_000_000 })
  const shop = await createShop(app)
  const send = () => app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal((await send()).statusCode, 200)

  const load = startLoad(send, 8)
  await pause(500)
  const cutAt = Date.now()
  await relay.cut()
  await pause(300)
  t.equal(app.dbHealth.state === 'closed', false, 'the breaker opened')
  const notReady = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(notReady.statusCode, 503)
  t.same(notReady.json().error, {
    code: 'SERVICE_UNAVAILABLE',
    message: 'Not ready: database not reachable.',
    details: [{ path: 'database', message: 'is not reachable' }]
  }, '/readyz names the dependency that failed')
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is fine')
  await pause(2000)
  const restoredAt = Date.now()
  await relay.restore()
  await pause(3000)
  const samples = await load.stop()

  const odd = samples.filter((s) => s.statusCode !== 200 && s.statusCode !== 503)
  t.same(odd.map((s) => `${s.statusCode} ${s.startedAt - cutAt} ${s.body}`).slice(0, 5), [], 'only 200 and 503, never a 500')
  const down = samples.filter((s) => s.startedAt >= cutAt && s.endedAt <= restoredAt)
  t.ok(down.length > 20, `${down.length} requests while it was down`)
  const failed = samples.filter((s) => s.statusCode === 503)
  t.ok(failed.every((s) => s.retryAfter !== undefined && JSON.parse(s.body).error.code === UNAVAILABLE.error.code), 'every 503 is SERVICE_UNAVAILABLE with Retry-After')
  const firstFailure = failed.find((s) => s.endedAt >= cutAt)
  t.ok(firstFailure, 'requests failed while it was down')
  const toFirst503 = firstFailure!.endedAt - cutAt
  const worstWhileDown = slowest(samples.filter((s) => s.startedAt >= cutAt && s.startedAt < restoredAt))
  t.ok(toFirst503 < 3000, `cut -> first 503: ${toFirst503} ms (target 1 s)`)
  t.ok(worstWhileDown < 3000, `slowest answer while down: ${worstWhileDown} ms (target 1 s)`)
  const firstSuccess = samples.filter((s) => s.statusCode === 200 && s.startedAt >= restoredAt).sort((a, b) => a.endedAt - b.endedAt)[0]
  t.ok(firstSuccess, 'requests succeed again')
  const recovery = firstSuccess!.endedAt - restoredAt
  t.ok(recovery < 6000, `restore -> first 200: ${recovery} ms (target 2 s)`)
  const late = samples.filter((s) => s.startedAt > firstSuccess!.endedAt + 500)
  t.ok(late.length > 0 && late.every((s) => s.statusCode === 200), 'after recovery, everything succeeds')
  t.comment(`figures: cut->first 503 ${toFirst503} ms; slowest while down ${worstWhileDown} ms; restore->first 200 ${recovery} ms; ${samples.length} requests`)
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
  t.same(failed.json(), UNAVAILABLE)

  await new Promise((resolve) => setTimeout(resolve, 100))
  await relay.restore()
  let retried
  for (let i = 0; i < 60; i++) {
    retried = await act(app, shop, order.id, 'take')
    if (retried.statusCode !== 503) break
    await pause(100)
  }
  t.equal(retried!.statusCode, 200, 'the process is alive and the retry takes the order once')
  t.equal(retried!.json().data.order.status, 'processing')
})
