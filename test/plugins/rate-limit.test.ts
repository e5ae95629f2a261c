// Rate limits (docs/api-rules.md, rate limits): per key across instances sharing Redis,
// unauthenticated callers per IP, the header sets, and failing open without Redis.
import t from 'tap'
import { build, buildBehindDatabaseRelay, createShop, internalHeaders } from '../helper.js'
import { testRedisUrl } from '../fixtures/databases.js'
import { anyCategoryId, productInput } from '../fixtures/products.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'
import { until } from '../fixtures/until.js'

t.test('per key, shared by two instances through Redis', async (t) => {
  const a = await build(t, { RATE_LIMIT_MAX: 5, RATE_LIMIT_WINDOW_MS: 60_000 })
  const b = await build(t, { RATE_LIMIT_MAX: 5, RATE_LIMIT_WINDOW_MS: 60_000 })
  const shop = await createShop(a)
  const sameShopKey = await a.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders, payload: { name: 'second' } })
  const secondKey = { authorization: `Bearer ${sameShopKey.json().data.secret}` }

  const remaining: number[] = []
  for (let i = 0; i < 5; i++) {
    const res = await (i % 2 ? b : a).inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
    t.equal(res.statusCode, 200)
    remaining.push(Number(res.headers['ratelimit-remaining']))
  }
  t.same(remaining, [4, 3, 2, 1, 0], 'both instances count in one window')

  const limited = await b.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(limited.statusCode, 429)
  t.match(limited.json(), { success: false, error: { code: 'RATE_LIMIT', message: String } })
  t.equal(limited.headers['ratelimit-limit'], '5')
  t.equal(limited.headers['ratelimit-remaining'], '0')
  const retryAfter = Number(limited.headers['retry-after'])
  t.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`)
  t.equal(limited.headers['ratelimit-policy'], '"default";q=5;w=60')
  t.match(limited.headers.ratelimit, /^"default";r=0;t=\d+$/)

  const otherKey = await a.inject({ method: 'GET', url: '/v1/currency-rates', headers: secondKey })
  t.equal(otherKey.statusCode, 200, 'the window is per key, not per shop or IP')
  t.equal(otherKey.headers['ratelimit-remaining'], '4')
})

t.test('requests that fail authentication are limited per client IP, without touching the database once over', async (t) => {
  const { app, relay } = await buildBehindDatabaseRelay(t, { RATE_LIMIT_MAX: 3 })
  const shop = await createShop(app)
  const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`
  const bad = { authorization: `Bearer service_sk_${'Z'.repeat(40)}` }
  const statuses = []
  for (const url of ['/v1/categories', '/v1/no-such-route', '/v1/orders']) {
    const res = await app.inject({ method: 'GET', url, headers: bad, remoteAddress: ip })
    statuses.push(res.statusCode)
    t.ok(res.headers['ratelimit-remaining'], `${url} carries the rate-limit headers`)
  }
  t.same(statuses, [401, 401, 401])
  const guessing = await app.inject({ method: 'GET', url: '/v1/no-such-route', headers: bad, remoteAddress: ip })
  t.equal(guessing.statusCode, 429, 'key guessing is cut off, unknown routes included')
  t.ok(guessing.headers['retry-after'])

  const otherIp = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.8`
  t.equal((await app.inject({ method: 'GET', url: '/v1/categories', headers: shop.headers, remoteAddress: otherIp })).statusCode, 200, 'other clients are unaffected')

  await relay.cut()
  const blocked = await app.inject({ method: 'GET', url: '/v1/categories', headers: bad, remoteAddress: ip })
  t.equal(blocked.statusCode, 429, 'an exhausted IP is answered without a database lookup (503 otherwise)')
  const sameIpValidKey = await app.inject({ method: 'GET', url: '/v1/categories', headers: shop.headers, remoteAddress: ip })
  t.equal(sameIpValidKey.statusCode, 429, 'until its window resets, the IP is not looked up at all, even with a valid key')
  await relay.restore()
})

t.test('behind a proxy, the client IP comes from X-Forwarded-For only with TRUST_PROXY', async (t) => {
  const trusting = await build(t, { RATE_LIMIT_MAX: 2, TRUST_PROXY: true })
  const direct = await build(t, { RATE_LIMIT_MAX: 2 })
  const bad = { authorization: 'Bearer nope' }
  const prefix = `198.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`
  const proxy = `127.0.${Math.floor(Math.random() * 250)}.9`
  for (const client of [`${prefix}.1`, `${prefix}.2`, `${prefix}.3`]) {
    for (let i = 0; i < 2; i++) {
      const res = await trusting.inject({ method: 'GET', url: '/v1/categories', headers: { ...bad, 'x-forwarded-for': client }, remoteAddress: proxy })
      t.equal(res.statusCode, 401, `${client} #${i + 1} still within its own window`)
    }
  }
  const statuses = []
  for (const client of [`${prefix}.4`, `${prefix}.5`, `${prefix}.6`]) {
    const res = await direct.inject({ method: 'GET', url: '/v1/categories', headers: { ...bad, 'x-forwarded-for': client }, remoteAddress: proxy })
    statuses.push(res.statusCode)
  }
  t.same(statuses, [401, 401, 429], 'without TRUST_PROXY a forged X-Forwarded-For does not open new windows')
})

t.test('Redis down: limits fail open, idempotent requests fail closed, then it recovers', async (t) => {
  const redis = new URL(testRedisUrl())
  const relay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  t.teardown(relay.cut)
  const app = await build(t, { REDIS_URL: viaRelay(testRedisUrl(), relay), RATE_LIMIT_MAX: 100 })
  const shop = await createShop(app)
  const categoryId = await anyCategoryId(app, shop)
  const before = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(before.headers['ratelimit-remaining'], '98')

  await relay.cut()
  const started = Date.now()
  const open = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
  t.equal(open.statusCode, 200, 'served without Redis')
  const idempotent = await app.inject({ method: 'POST', url: '/v1/products', headers: { ...shop.headers, 'idempotency-key': 'k-1' }, payload: productInput(categoryId) })
  t.equal(idempotent.statusCode, 503)
  t.equal(idempotent.json().error.code, 'SERVICE_UNAVAILABLE')
  t.ok(Date.now() - started < 5000, 'nobody waits on the dead Redis for long')
  const ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 503, 'not ready without Redis')
  t.same(ready.json().error.details, [{ path: 'redis', message: 'is not reachable' }], '/readyz names Redis, and only Redis')

  await relay.restore()
  let recovered = false
  for (let i = 0; i < 50 && !recovered; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const res = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
    recovered = Number(res.headers['ratelimit-remaining']) < 98
  }
  t.ok(recovered, 'counting in Redis again without a restart')
  // Ready again too, once the breakers' probes have seen it (each check has 1 s, which a busy
  // machine can stretch): polled for up to 10 s, not ten checks in a row, which can all come
  // before the next probe.
  let readiness = 0
  await until(async () => (readiness = (await app.inject({ method: 'GET', url: '/readyz' })).statusCode) === 200, 10_000, 100)
  t.equal(readiness, 200, 'ready again without a restart')
})
