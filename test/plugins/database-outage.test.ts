// Postgres going away, as fault injection through a TCP relay (cut: every
// connection dropped, the port refusing), under concurrent requests:
// - while it is away, every request that needs it gets 503 SERVICE_UNAVAILABLE
//   with Retry-After, refused by the breaker instead of waiting for a connection
//   (which takes the 1 s connect timeout, and hung 6–18 s before the breaker);
//   /readyz names the database; /healthz stays up;
// - after it is back, requests succeed again without a restart, and every request
//   started 0.5 s after the first success succeeds.
// What is asserted is the behaviour, with bounds only far above the configured
// timeouts (a busy machine must not fail it); the times themselves are printed as
// figures (docs/reliability.md), never asserted; `npm run bench:outages` measures them.
import { setTimeout as pause } from 'node:timers/promises'
import postgres from 'postgres'
import t from 'tap'
import { CONNECT_TIMEOUT_S } from '../../db/core/client.js'
import { buildBehindDatabaseRelay, createShop } from '../helper.js'
import { act, buy } from '../fixtures/orders.js'
import { median, slowest, startLoad } from '../fixtures/load.js'
import { createProduct } from '../fixtures/products.js'
import { until, waitUntil } from '../fixtures/until.js'

/** A request waiting for a connection takes at least the connect timeout. */
const CONNECT_TIMEOUT_MS = CONNECT_TIMEOUT_S * 1000
/** Longer than any request may take while the database is away: a hang, not a slow machine. */
const HANG_MS = 10 * CONNECT_TIMEOUT_MS

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
  await waitUntil('the breaker to open', () => app.dbHealth.state !== 'closed', HANG_MS)
  const openedAt = Date.now()
  const notReady = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(notReady.statusCode, 503)
  // (On a starved machine Redis's ping may miss its deadline too and be named as well.)
  const { error } = notReady.json()
  t.equal(error.code, 'SERVICE_UNAVAILABLE')
  t.match(error.message, /^Not ready: database not reachable[.;]/)
  t.same(error.details[0], { path: 'database', message: 'is not reachable' }, '/readyz names the dependency that failed')
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is fine')
  await pause(2000)
  const restoredAt = Date.now()
  await relay.restore()
  // Keep the load on until a request started after the restore has succeeded, and
  // 1.5 s more: on a slow machine recovery alone can take most of a fixed wait.
  let recoveredAt: number | undefined
  await until(() => {
    recoveredAt ??= load.samples.find((s) => s.statusCode === 200 && s.startedAt >= restoredAt)?.endedAt
    return recoveredAt !== undefined && Date.now() > recoveredAt + 1500
  }, 2 * HANG_MS, 100)
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
  const whileDown = samples.filter((s) => s.startedAt >= cutAt && s.startedAt < restoredAt)
  const worstWhileDown = slowest(whileDown)
  const whileOpen = samples.filter((s) => s.startedAt >= openedAt && s.endedAt <= restoredAt)
  t.ok(whileOpen.length > 0 && whileOpen.every((s) => s.statusCode === 503), 'once the breaker is open, every request is refused')
  const medianWhileOpen = median(whileOpen.map((s) => s.endedAt - s.startedAt))
  t.ok(medianWhileOpen < CONNECT_TIMEOUT_MS,
    `refused by the breaker, not after waiting for a connection: median ${medianWhileOpen} ms, connect timeout ${CONNECT_TIMEOUT_MS} ms`)
  t.ok(worstWhileDown < HANG_MS, `no request hangs while it is down: slowest ${worstWhileDown} ms`)
  const firstSuccess = samples.filter((s) => s.statusCode === 200 && s.startedAt >= restoredAt).sort((a, b) => a.endedAt - b.endedAt)[0]
  t.ok(firstSuccess, 'requests succeed again, without a restart')
  const recovery = firstSuccess!.endedAt - restoredAt
  const late = samples.filter((s) => s.startedAt > firstSuccess!.endedAt + 500)
  const lateFailures = late.filter((s) => s.statusCode !== 200)
  t.ok(late.length > 0, `${late.length} requests after recovery`)
  t.same(lateFailures.map((s) => `${s.statusCode} ${s.startedAt - restoredAt} ms after the restore: ${s.body}`).slice(0, 3), [],
    'after recovery, everything succeeds')
  t.comment(`figures: cut->first 503 ${toFirst503} ms; slowest while down ${worstWhileDown} ms; restore->first 200 ${recovery} ms; ${samples.length} requests`)
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
})

t.test('the connection dropping inside a transaction fails that request, not the process', async (t) => {
  const { app, relay, databaseUrl: url } = await buildBehindDatabaseRelay(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)

  // Hold the order's row so the take waits inside its transaction, then cut the line.
  // Each step waits for the one before it, not for a fixed time (a slow machine).
  const blocker = postgres(url, { max: 1, onnotice: () => {} })
  const observer = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(async () => { await Promise.all([blocker.end({ timeout: 1 }), observer.end({ timeout: 1 })]) })
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
  let locked!: () => void
  const isLocked = new Promise<void>((resolve) => { locked = resolve })
  const held = blocker.begin(async (sql) => {
    await sql`select id from orders where id = ${order.id} for update`
    locked()
    await released
  })
  await isLocked
  const take = act(app, shop, order.id, 'take')
  const takeWaits = async () => (await observer`select 1 from pg_stat_activity
    where wait_event_type = 'Lock' and datname = current_database()`).length > 0
  t.ok(await until(takeWaits, 5000, 50), 'the take waits for the held row')
  await relay.cut()
  const failed = await take
  // Postgres notices the client gone within client_connection_check_interval and
  // cancels the waiting statement; only then is the row let go.
  t.ok(await until(async () => !(await takeWaits()), 5000, 50), 'Postgres cancels the statement of the vanished client')
  release()
  await held
  t.equal(failed.statusCode, 503, 'the request in the broken transaction fails cleanly')
  t.same(failed.json(), UNAVAILABLE)

  await pause(100)
  await relay.restore()
  let retried: Awaited<ReturnType<typeof act>> | undefined
  await until(async () => {
    retried = await act(app, shop, order.id, 'take')
    return retried.statusCode !== 503
  }, 6000, 100)
  t.equal(retried!.statusCode, 200, 'the process is alive and the retry takes the order once')
  t.equal(retried!.json().data.order.status, 'processing')
})
