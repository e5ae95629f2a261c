// A revocation no instance can miss (docs/security.md, Revocation): it commits
// with its notice through Postgres, so the CLI needs no Redis, instances without
// Redis hear it too, and a long poll held by the revoked key answers 401.
import t from 'tap'
import { runCli } from '../fixtures/cli.js'
import { page, untilHeld } from '../fixtures/events.js'
import { buy } from '../fixtures/orders.js'
import { revocationsSeen, untilRevocationSeen } from '../fixtures/revocations.js'
import { createProduct } from '../fixtures/products.js'
import { build, createShop, fileDatabaseUrl, internalHeaders, type App, type ShopFixture } from '../helper.js'

/** A /v1 request that needs the key but nothing else from the database: the 404 of an unknown route. */
const probe = (app: App, shop: ShopFixture) =>
  app.inject({ method: 'GET', url: '/v1/no-such-route', headers: shop.headers }).then((res) => res.statusCode)

t.test('the CLI revokes without REDIS_URL: two running instances refuse the key on the very next request', async (t) => {
  const a = await build(t)
  const b = await build(t, { REDIS_URL: undefined })
  const victim = await createShop(a, 'Victim')
  const bystander = await createShop(a, 'Bystander')
  for (let i = 0; i < 3; i++) {
    t.equal(await probe(a, victim), 404, 'cached on a (with Redis)')
    t.equal(await probe(b, victim), 404, 'cached on b (without Redis)')
  }
  const seen = [revocationsSeen(a), revocationsSeen(b)]
  const { code, stdout } = await runCli({ DATABASE_URL: await fileDatabaseUrl(), REDIS_URL: undefined }, 'key:revoke', victim.shopId, victim.keyId)
  t.equal(code, 0, 'the CLI revoked it')
  t.match(stdout, /REVOKED/)
  // The notice of the CLI's commit reaches each instance on its own listening connection.
  await untilRevocationSeen(a, seen[0])
  await untilRevocationSeen(b, seen[1])
  t.equal(await probe(a, victim), 401, 'a: the very next request')
  t.equal(await probe(b, victim), 401, 'b: the very next request')
  t.equal(await probe(a, bystander), 404, 'other keys keep working on a')
  t.equal(await probe(b, bystander), 404, 'and on b')
})

t.test('instances without Redis cache keys and hear revocations from each other', async (t) => {
  const a = await build(t, { REDIS_URL: undefined })
  const b = await build(t, { REDIS_URL: undefined })
  const victim = await createShop(a, 'Victim')
  for (let i = 0; i < 3; i++) t.equal(await probe(b, victim), 404)
  t.ok(b.apiKeyCache.active, 'b caches keys (it hears revocations through Postgres)')
  const seen = revocationsSeen(b)
  const revoked = await a.inject({ method: 'POST', url: `/internal/v1/shops/${victim.shopId}/api-keys/${victim.keyId}/revoke`, headers: internalHeaders })
  t.equal(revoked.statusCode, 200)
  await untilRevocationSeen(b, seen)
  t.equal(await probe(b, victim), 401, 'the very next request on the other instance')
})

t.test('a long poll held when its key is revoked answers 401 and hands out nothing after', async (t) => {
  const writer = await build(t)
  const reader = await build(t)
  const shop = await createShop(writer)
  const product = await createProduct(writer, shop)
  const { nextCursor } = await page(reader, shop, 'after=latest')
  const held = reader.inject({ method: 'GET', url: `/v1/events?after=${nextCursor}&wait=30`, headers: shop.headers })
  await untilHeld(reader, 1)
  const revoked = await writer.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys/${shop.keyId}/revoke`, headers: internalHeaders })
  t.equal(revoked.statusCode, 200)
  await buy(writer, product)
  const res = await held
  t.equal(res.statusCode, 401, 'the held request re-checked its key')
  t.equal(res.json().error.code, 'API_KEY_INVALID')
  t.notOk(res.body.includes('order.paid'), 'no event committed after the revocation')
})

t.test('a long poll whose key stays valid is not disturbed by another key\'s revocation', async (t) => {
  const writer = await build(t)
  const reader = await build(t)
  const shop = await createShop(writer)
  const product = await createProduct(writer, shop)
  const second = await writer.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys`, headers: internalHeaders, payload: { name: 'second' } })
  const { nextCursor } = await page(reader, shop, 'after=latest')
  const held = reader.inject({ method: 'GET', url: `/v1/events?after=${nextCursor}&wait=30`, headers: shop.headers })
  await untilHeld(reader, 1)
  const revoked = await writer.inject({ method: 'POST', url: `/internal/v1/shops/${shop.shopId}/api-keys/${second.json().data.apiKey.id}/revoke`, headers: internalHeaders })
  t.equal(revoked.statusCode, 200)
  const order = await buy(writer, product)
  const res = await held
  t.equal(res.statusCode, 200)
  t.same(res.json().data.events.map((e: { data: { order: { id: string } } }) => e.data.order.id), [order.id], 'the event after the other key\'s revocation')
})
