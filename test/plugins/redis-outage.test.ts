// Redis hung (the process stopped, its sockets open) and Redis gone (connections
// refused), as fault injection through a TCP relay, under concurrent requests:
// - after the first failures Redis is skipped (its breaker opens): plain requests
//   are served without waiting for it (a request that did would take the 500 ms
//   command timeout), rate limits count in memory, requests with an
//   Idempotency-Key get 503; one warning per outage, no error lines;
// - a keyed request that got 503 while its SET NX sat queued in the hung
//   connection does not block its retries once Redis is back (the claim that
//   lands late is released), and the retry runs exactly once;
// - Redis is probed in the background and used again without a restart, even
//   when the client gave up reconnecting (as ioredis does when a Sentinel's
//   failover announcement interrupts its reconnection).
// What is asserted is the behaviour, with bounds only far above the configured
// timeouts (a busy machine must not fail it); the times themselves are printed as
// figures (docs/reliability.md), never asserted; `npm run bench:outages` measures them.
import { Writable } from 'node:stream'
import { setTimeout as pause } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { buildApp, serverOptions } from '../../app.js'
import { testRedisUrl } from '../fixtures/databases.js'
import { buy } from '../fixtures/orders.js'
import { median, percentile, startLoad, type Sample } from '../fixtures/load.js'
import { createProduct } from '../fixtures/products.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'
import { until, waitUntil } from '../fixtures/until.js'
import { createShop, testConfig, type App } from '../helper.js'
import { COMMAND_TIMEOUT_MS } from '../../plugins/redis.js'

/** Longer than anything may take while Redis is away or coming back: a hang, not a slow machine. */
const HANG_MS = 20 * COMMAND_TIMEOUT_MS

const latencies = (samples: Sample[]) => samples.map((s) => s.endedAt - s.startedAt)

async function appBehindRedisRelay (t: Test) {
  const redis = new URL(testRedisUrl())
  const relay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  t.teardown(relay.cut)
  let logs = ''
  const stream = new Writable({ write (chunk, _encoding, done) { logs += chunk.toString(); done() } })
  const config = await testConfig({ REDIS_URL: viaRelay(testRedisUrl(), relay), RATE_LIMIT_MAX: 1_000_000, LOG_LEVEL: 'info' })
  const app = await buildApp({ config }, { logger: { ...(serverOptions(config).logger as object), stream } })
  t.teardown(() => app.close())
  return { app, relay, logs: () => logs }
}

/** How long `condition` took to hold; fails when it does not within HANG_MS. */
async function waitFor (what: string, condition: () => boolean): Promise<number> {
  const started = Date.now()
  await waitUntil(what, condition, HANG_MS)
  return Date.now() - started
}

const postMessage = (app: App, headers: Record<string, string>, orderId: string, key: string) =>
  app.inject({ method: 'POST', url: `/v1/orders/${orderId}/messages`, headers: { ...headers, 'idempotency-key': key }, payload: { text: 'exactly once' } })

t.test('Redis hung under load: skipped after the first failures, claims never block retries', async (t) => {
  const { app, relay, logs } = await appBehindRedisRelay(t)
  const shop = await createShop(app)
  const order = await buy(app, await createProduct(app, shop))
  const send = () => app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })

  const load = startLoad(send, 8)
  await pause(1000)
  // Redis hangs just as the keyed request's claim (SET NX) reaches it: the command
  // sits in the connection, the request gets 503, and the claim lands on resume.
  relay.pauseOn((chunk) => chunk.includes('hung-claim') && /\bSET\b/i.test(chunk.toString('latin1')))
  const keyedAt = Date.now()
  const keyed = await postMessage(app, shop.headers, order.id, 'hung-claim')
  const pausedAt = keyedAt
  t.equal(keyed.statusCode, 503, 'the keyed request cannot be promised at-most-once: 503')
  t.equal(keyed.json().error.code, 'SERVICE_UNAVAILABLE')
  await waitFor('the breaker to open', () => app.redisHealth!.state !== 'closed')
  const openedAfter = Date.now() - pausedAt
  const refused = await postMessage(app, shop.headers, order.id, 'while-open')
  t.equal(refused.statusCode, 503, 'keyed requests are refused while Redis is down')
  t.equal(refused.headers['retry-after'], '1', 'the 503 says when to come back')
  const ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.same(ready.json().error.details, [{ path: 'redis', message: 'is not reachable' }], '/readyz names Redis')
  await pause(3000)
  const resumedAt = Date.now()
  relay.resume()
  const recoveredAfter = await waitFor('Redis used again once it answers', () => app.redisHealth!.state === 'closed')
  await pause(500)
  const samples = await load.stop()

  const before = samples.filter((s) => s.endedAt < pausedAt)
  const skipped = samples.filter((s) => s.startedAt > pausedAt + openedAfter + 100 && s.endedAt < resumedAt)
  t.ok(samples.every((s) => s.statusCode === 200), 'plain requests are all served')
  t.ok(skipped.length > 50, `${skipped.length} plain requests while Redis was skipped`)
  const baseline = median(latencies(before))
  const extraP95 = percentile(latencies(skipped), 0.95) - baseline
  const extraMedian = median(latencies(skipped)) - baseline
  // Had they asked the hung Redis, every one would have waited the command timeout.
  t.ok(median(latencies(skipped)) < COMMAND_TIMEOUT_MS,
    `plain requests do not wait for the hung Redis: median ${median(latencies(skipped))} ms, command timeout ${COMMAND_TIMEOUT_MS} ms`)
  t.ok(Math.max(...latencies(skipped)) < HANG_MS, 'none hangs')
  t.comment(`figures: breaker open after ${openedAfter} ms; extra latency median ${extraMedian} ms, p95 ${extraP95} ms; recovery ${recoveredAfter} ms; ${samples.length} requests`)

  // The SET NX queued in the hung connection has landed by now, and been released.
  const retried = await postMessage(app, shop.headers, order.id, 'hung-claim')
  t.equal(retried.statusCode, 201, `the retry runs: ${retried.body}`)
  t.notOk(retried.headers['idempotency-replayed'])
  const again = await postMessage(app, shop.headers, order.id, 'hung-claim')
  t.equal(again.headers['idempotency-replayed'], 'true', 'and is remembered from then on')
  const messages = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}/messages`, headers: shop.headers })
  t.equal(messages.json().data.messages.length, 1, 'one message: the request ran exactly once')

  const lines = logs().trim().split('\n').map((line) => JSON.parse(line) as { level: number, msg: string })
  t.equal(lines.filter((l) => l.msg.startsWith('redis unavailable')).length, 1, 'one warning for the outage')
  t.equal(lines.filter((l) => l.msg === 'redis available again').length, 1, 'one line for the recovery')
  t.same(lines.filter((l) => l.level >= 50).map((l) => l.msg), [], 'no error lines')
})

t.test('Redis refusing connections: the same, and a 5xx claim released', async (t) => {
  const { app, relay } = await appBehindRedisRelay(t)
  const shop = await createShop(app)
  const order = await buy(app, await createProduct(app, shop))
  await relay.cut()
  const started = Date.now()
  const plain = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(plain.statusCode, 200, 'served without Redis')
  const keyed = await postMessage(app, shop.headers, order.id, 'refused')
  t.equal(keyed.statusCode, 503)
  t.ok(Date.now() - started < HANG_MS, 'nobody hangs on a refusing Redis')
  await relay.restore()
  await waitFor('Redis back in use without a restart', () => app.redisHealth!.state === 'closed')
  const retried = await postMessage(app, shop.headers, order.id, 'refused')
  t.equal(retried.statusCode, 201, retried.body)
})

t.test('Redis away at start: the app starts, skips it, and takes it up when it comes', async (t) => {
  const redis = new URL(testRedisUrl())
  const relay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  t.teardown(relay.cut)
  await relay.cut()
  const config = await testConfig({ REDIS_URL: viaRelay(testRedisUrl(), relay) })
  const app = await buildApp({ config })
  t.teardown(() => app.close())
  t.not(app.redisHealth!.state, 'closed', 'skipped from the start')
  const shop = await createShop(app)
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })).statusCode, 200, 'served without it')
  await relay.restore()
  await waitFor('Redis used once it answers', () => app.redisHealth!.state === 'closed')
})

t.test('a client that gave up reconnecting is started again by the probe', async (t) => {
  const { app } = await appBehindRedisRelay(t)
  const shop = await createShop(app)
  const order = await buy(app, await createProduct(app, shop))
  // ioredis ends a connection for good (status `end`, no more retries) when a Sentinel's
  // +switch-master disconnects it while it asks the Sentinels for the primary; a plain
  // disconnect leaves the client in the same state.
  app.redis!.disconnect()
  t.ok(await until(() => app.redis!.status === 'end', 2000), 'the client ended')
  const keyed = await postMessage(app, shop.headers, order.id, 'after-end')
  t.equal(keyed.statusCode, 503, 'refused while the client is down')
  await waitFor('Redis back in use without a restart', () => app.redisHealth!.state === 'closed')
  t.equal(app.redis!.status, 'ready')
  const retried = await postMessage(app, shop.headers, order.id, 'after-end')
  t.equal(retried.statusCode, 201, retried.body)
})
