// API key authentication (docs/api-rules.md, authentication): both headers, precedence,
// malformed / unknown / revoked keys, revocation across instances (with keys
// cached in memory), lastUsedAt.
import t from 'tap'
import { hashApiKey } from '../../domain/api-key.js'
import { testRedisUrl } from '../fixtures/databases.js'
import { revocationsSeen, untilRevocationSeen } from '../fixtures/revocations.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'
import { build, buildBehindDatabaseRelay, createShop, internalHeaders, type App, type ShopFixture } from '../helper.js'

const revoke = (app: App, shop: ShopFixture) =>
  app.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys/${shop.keyId}/revoke`, headers: internalHeaders })
/** A /v1 request that needs the key but nothing else from the database: the 404 of an unknown route. */
const probe = (app: App, shop: ShopFixture) =>
  app.inject({ method: 'GET', url: '/v1/no-such-route', headers: shop.headers }).then((res) => res.statusCode)

t.test('API key authentication', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/v1/currency-rates', headers })

  t.test('Bearer and X-API-Key both work', async (t) => {
    t.equal((await get({ authorization: `Bearer ${shop.apiKey}` })).statusCode, 200)
    t.equal((await get({ authorization: `bearer ${shop.apiKey}` })).statusCode, 200, 'scheme is case-insensitive')
    t.equal((await get({ 'x-api-key': shop.apiKey })).statusCode, 200)
  })

  t.test('Authorization wins when both are sent', async (t) => {
    const wrongBearer = await get({ authorization: `Bearer service_sk_${'A'.repeat(40)}`, 'x-api-key': shop.apiKey })
    t.equal(wrongBearer.statusCode, 401)
    const rightBearer = await get({ authorization: `Bearer ${shop.apiKey}`, 'x-api-key': 'garbage' })
    t.equal(rightBearer.statusCode, 200)
  })

  t.test('the key in both headers, as generated clients send it: one request of that key', async (t) => {
    const both = { authorization: `Bearer ${shop.apiKey}`, 'x-api-key': shop.apiKey }
    const first = await get(both)
    const second = await get(both)
    t.equal(first.statusCode, 200)
    t.equal(Number(first.headers['ratelimit-remaining']) - Number(second.headers['ratelimit-remaining']), 1, 'counted once')
    const posted = await app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: both, payload: { url: 'https://bot.example.com/hooks' } })
    t.equal(posted.statusCode, 201, 'writes too')
    // Another shop's key in X-API-Key changes nothing: the Authorization key decides.
    const mixed = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: { ...both, 'x-api-key': other.apiKey } })
    t.same(mixed.json().data.endpoints.map((e: { id: string }) => e.id), [posted.json().data.endpoint.id], 'the Authorization key\'s shop')
  })

  t.test('missing, malformed and unknown keys: 401 API_KEY_INVALID', async (t) => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${shop.apiKey.slice(0, -1)}` },
      { authorization: `Bearer ${shop.apiKey}x` },
      { authorization: `Bearer sk_live_${'a'.repeat(40)}` },
      { authorization: `Bearer service_sk_${'a'.repeat(39)}!` },
      { 'x-api-key': `service_sk_${'b'.repeat(40)}` }
    ]
    for (const headers of cases) {
      const res = await get(headers)
      t.equal(res.statusCode, 401, JSON.stringify(headers))
      t.same(res.json(), { success: false, error: { code: 'API_KEY_INVALID', message: 'The API key is missing, malformed, unknown or revoked.' } })
    }
  })

  t.test('401 comes before body validation', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/v1/products', headers: { 'content-type': 'application/json' }, payload: '{broken' })
    t.equal(res.statusCode, 401)
  })

  t.test('a key sees only its own shop', async (t) => {
    await app.inject({ method: 'PUT', url: `/internal/v1/shops/${other.shopId}/currency-rates/EUR`, headers: internalHeaders, payload: { rate: 100 } })
    const mine = await get(shop.headers)
    t.same(mine.json().data.rates, [])
    const theirs = await get(other.headers)
    t.equal(theirs.json().data.rates.length, 1)
  })

  t.test('revocation takes effect on the next request, on every instance', async (t) => {
    const second = await build(t)
    const victim = await createShop(app, 'Revoked shop')
    t.equal((await second.inject({ method: 'GET', url: '/v1/categories', headers: victim.headers })).statusCode, 200)
    const revoke = await app.inject({ method: 'POST', url: `/internal/v1/shops/${victim.shopId}/api-keys/${victim.keyId}/revoke`, headers: internalHeaders })
    t.equal(revoke.statusCode, 200)
    t.ok(revoke.json().data.apiKey.revokedAt)
    t.equal((await second.inject({ method: 'GET', url: '/v1/categories', headers: victim.headers })).statusCode, 401, 'other instance')
    t.equal((await app.inject({ method: 'GET', url: '/v1/categories', headers: victim.headers })).statusCode, 401, 'same instance')
    const again = await app.inject({ method: 'POST', url: `/internal/v1/shops/${victim.shopId}/api-keys/${victim.keyId}/revoke`, headers: internalHeaders })
    t.equal(again.json().data.apiKey.revokedAt, revoke.json().data.apiKey.revokedAt, 'revoking twice keeps the first time')
  })

  t.test('a new key replaces a leaked one; listing never shows secrets', async (t) => {
    const created = await app.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders, payload: { name: 'replacement' } })
    t.equal(created.statusCode, 201)
    const { apiKey, secret } = created.json().data
    t.match(secret, /^service_sk_[A-Za-z0-9]{40}$/)
    t.equal(apiKey.prefix, secret.slice(11, 15))
    t.equal(apiKey.lastUsedAt, null)
    t.equal((await get({ authorization: `Bearer ${secret}` })).statusCode, 200)
    const list = await app.inject({ method: 'GET', url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders })
    t.equal(list.statusCode, 200)
    t.notOk(list.body.includes(secret), 'no secret in the list')
    t.notOk(list.body.includes('keyHash') || list.body.includes('key_hash'), 'no hash in the list')
    const used = list.json().data.apiKeys.find((k: { id: string }) => k.id === apiKey.id)
    t.ok(used.lastUsedAt, 'lastUsedAt recorded')
  })

  t.test('keys of an unknown shop: 404', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/internal/v1/shops/00000000-0000-4000-8000-000000000000/api-keys', headers: internalHeaders, payload: { name: 'x' } })
    t.equal(res.statusCode, 404)
    const revoke = await app.inject({ method: 'POST', url: `/internal/v1/shops/${other.shopId}/api-keys/${shop.keyId}/revoke`, headers: internalHeaders })
    t.equal(revoke.statusCode, 404, 'a key of another shop is not found')
  })
})

t.test('malformed keys never reach the database', async (t) => {
  const { app, relay } = await buildBehindDatabaseRelay(t)
  const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/v1/currency-rates', headers })
  await relay.cut()

  const malformed: Array<Record<string, string>> = [
    { authorization: 'Bearer abc' },
    { authorization: `Bearer service_sk_${'A'.repeat(39)}` },
    { authorization: `Bearer service_sk_${'A'.repeat(39)}-` },
    { 'x-api-key': `sk_${'A'.repeat(40)}` }
  ]
  for (const headers of malformed) {
    const res = await get(headers)
    t.equal(res.statusCode, 401, `${JSON.stringify(headers)} with the database away`)
    t.equal(res.json().error.code, 'API_KEY_INVALID')
  }
  const unknown = await get({ authorization: `Bearer service_sk_${'A'.repeat(40)}` })
  t.equal(unknown.statusCode, 503, 'a well-formed key has to be looked up')
  t.equal(unknown.json().error.code, 'SERVICE_UNAVAILABLE')
})

t.test('a key in use is cached: no database lookup per request', async (t) => {
  const { app, relay } = await buildBehindDatabaseRelay(t)
  const shop = await createShop(app)
  const idle = await createShop(app, 'Idle shop')
  const lookups = relay.countFromApp((chunk) => chunk.includes(hashApiKey(shop.apiKey)))
  // The first requests learn the revocation epoch from Redis; lookups after that are cached.
  t.equal(await probe(app, shop), 404, 'looked up')
  t.equal(await probe(app, shop), 404, 'looked up and cached')
  const looked = lookups.count
  t.ok(looked >= 1, 'the counter sees lookups')
  for (let i = 0; i < 5; i++) t.equal(await probe(app, shop), 404, `cached (${i + 1})`)
  t.equal(lookups.count, looked, 'no lookup of the key sent to the database for them')
  await relay.cut()
  // The moment the listening connection's drop is seen, the cache is off.
  for (let i = 0; i < 200 && app.apiKeyCache.active; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.notOk(app.apiKeyCache.active, 'the listener\'s drop turns the cache off')
  t.equal(await probe(app, shop), 503, 'the database is away: revocations cannot be heard, so no cached key is trusted')
  t.equal(await probe(app, idle), 503, 'a key not seen yet has to be looked up')
  await relay.restore()
})

t.test('revocation reaches an instance that has the key cached, and only that key', async (t) => {
  const a = await build(t)
  const b = await build(t)
  const victim = await createShop(a, 'Victim')
  const bystander = await createShop(a, 'Bystander')
  for (let i = 0; i < 3; i++) {
    t.equal(await probe(b, victim), 404)
    t.equal(await probe(b, bystander), 404)
  }
  t.equal((await revoke(a, victim)).statusCode, 200)
  t.equal(await probe(b, victim), 401, 'the very next request on the other instance')
  t.equal(await probe(a, victim), 401, 'and on the revoking one')
  t.equal(await probe(b, bystander), 404, 'other keys keep working')
})

t.test('a cached key is not trusted while Redis does not answer', async (t) => {
  const redis = new URL(testRedisUrl())
  const relay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  t.teardown(relay.cut)
  const a = await build(t)
  const b = await build(t, { REDIS_URL: viaRelay(testRedisUrl(), relay) })
  const victim = await createShop(a, 'Victim')
  const bystander = await createShop(a, 'Bystander')
  t.equal(await probe(b, victim), 404)
  t.equal(await probe(b, bystander), 404)

  await relay.cut()
  t.equal((await revoke(a, victim)).statusCode, 200, 'revoked while b cannot hear of it through Redis')
  t.equal(await probe(b, victim), 401, 'b asks the database instead')
  t.equal(await probe(b, bystander), 404, 'and keeps serving valid keys')
  await relay.restore()
  for (let i = 0; i < 3; i++) t.equal(await probe(b, victim), 401, `after Redis is back (${i + 1})`)
})

t.test('a revoke through an instance whose Redis is away: 200, and every instance refuses the key at once', async (t) => {
  const redis = new URL(testRedisUrl())
  const relay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  t.teardown(relay.cut)
  const a = await build(t, { REDIS_URL: viaRelay(testRedisUrl(), relay) })
  const b = await build(t)
  const victim = await createShop(b, 'Victim')
  for (let i = 0; i < 3; i++) t.equal(await probe(b, victim), 404, 'cached on b')

  await relay.cut()
  const seen = revocationsSeen(b)
  const revoked = await revoke(a, victim)
  t.equal(revoked.statusCode, 200, 'the revocation committed, and so did its notice')
  t.ok(revoked.json().data.apiKey.revokedAt)
  await untilRevocationSeen(b, seen)
  t.equal(await probe(b, victim), 401, 'the very next request on the other instance, its Redis answering')
  t.equal(await probe(a, victim), 401, 'and on the revoking one')
  await relay.restore()
})

t.test('embedded database: keys are cached in the one process that can revoke them', async (t) => {
  const app = await build(t, { DATABASE_URL: undefined, REDIS_URL: undefined, DATA_DIR: 'memory://' })
  const victim = await createShop(app, 'Victim')
  const bystander = await createShop(app, 'Bystander')
  for (let i = 0; i < 3; i++) {
    t.equal(await probe(app, victim), 404)
    t.equal(await probe(app, bystander), 404)
  }
  t.equal((await revoke(app, victim)).statusCode, 200)
  t.equal(await probe(app, victim), 401, 'the very next request')
  t.equal(await probe(app, bystander), 404)
})
