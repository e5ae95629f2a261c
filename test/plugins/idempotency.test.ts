// Idempotency (docs/api-rules.md, idempotency), against both stores: Redis (REDIS_URL set) and
// the idempotency_records table (no Redis).
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import t, { type Test } from 'tap'
import type { Config } from '../../plugins/config.js'
import { createProduct } from '../fixtures/products.js'
import { act, buy, ledger, orderIn } from '../fixtures/orders.js'
import { testRedisPrefix, testRedisUrl } from '../fixtures/databases.js'
import { stockKey } from '../fixtures/stock.js'
import { build, createShop, fileDatabaseUrl, type App, type ShopFixture } from '../helper.js'

const stores: Array<[string, Partial<Config>]> = [['redis', {}], ['database', { REDIS_URL: undefined }]]

async function setup (t: Test, overrides: Partial<Config>) {
  const app = await build(t, overrides)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  return { app, shop, product }
}

function postMessage (app: App, shop: ShopFixture, orderId: string, text: string, key?: string) {
  return app.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/messages`,
    headers: { ...shop.headers, ...(key ? { 'idempotency-key': key } : {}) },
    payload: { text }
  })
}

async function messageCount (app: App, shop: ShopFixture, orderId: string): Promise<number> {
  const res = await app.inject({ method: 'GET', url: `/v1/orders/${orderId}/messages?limit=100`, headers: shop.headers })
  return res.json().data.messages.length
}

/** Holds the order's row lock from outside the service, so a request touching it stays in flight. */
async function holdOrderRow (orderId: string) {
  const sql = postgres(await fileDatabaseUrl(), { max: 2, onnotice: () => {} })
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
  let locked!: () => void
  const isLocked = new Promise<void>((resolve) => { locked = resolve })
  const done = sql.begin(async (tx) => {
    await tx`select id from orders where id = ${orderId} for update`
    locked()
    await released
  })
  await isLocked
  return {
    /** Resolves once some other session is waiting for a lock in this database. */
    async waitForWaiter () {
      for (;;) {
        const [{ n }] = await sql`select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid) where not l.granted and a.datname = current_database()`
        if (n > 0) return
        await sleep(10)
      }
    },
    /** Cancels the statements waiting for a lock in this database (they fail with SQLSTATE 57014). */
    async cancelWaiters () {
      await sql`select pg_cancel_backend(l.pid) from pg_locks l join pg_stat_activity a using (pid) where not l.granted and a.datname = current_database()`
    },
    async release () {
      release()
      await done
      await sql.end()
    }
  }
}

/** The response stored for `storeKey` (shop id, colon, Idempotency-Key), as the store holds it. */
async function storedResponse (store: string, storeKey: string): Promise<{ body: string, keyId?: string }> {
  const databaseUrl = await fileDatabaseUrl()
  if (store === 'redis') {
    const redis = new Redis(testRedisUrl())
    try {
      const text = await redis.get(`${testRedisPrefix(new URL(databaseUrl).pathname.slice(1))}idem:${storeKey}`)
      return JSON.parse(text!).response
    } finally {
      redis.disconnect()
    }
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    const [row] = await sql`select response from idempotency_records where key = ${storeKey}`
    return row.response
  } finally {
    await sql.end()
  }
}

for (const [store, overrides] of stores) {
  t.test(`${store} store`, async (t) => {
    t.test('a replay returns the first response byte for byte and has no second effect', async (t) => {
      const { app, shop, product } = await setup(t, overrides)
      const order = await buy(app, product)
      const first = await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'take-1' })
      t.equal(first.statusCode, 200, first.body)
      t.notOk(first.headers['idempotency-replayed'], 'the first response is not a replay')
      const again = await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'take-1' })
      t.equal(again.statusCode, 200, 'same status, although a second take would be refused')
      t.equal(again.headers['idempotency-replayed'], 'true')
      t.equal(again.body, first.body, 'byte-identical body')
      t.equal(again.headers['content-type'], first.headers['content-type'])
      t.ok(again.headers['x-request-id'], 'a replay still has its own request id')

      const cancelled = await orderIn(app, shop, product, 'processing')
      const cancels = []
      for (let i = 0; i < 3; i++) cancels.push(await act(app, shop, cancelled.id, 'cancel', { reason: 'no stock' }, { 'idempotency-key': 'cancel-1' }))
      t.same(cancels.map((r) => r.statusCode), [200, 200, 200])
      t.same(cancels.map((r) => r.body), [cancels[0].body, cancels[0].body, cancels[0].body])
      t.equal((await ledger(app, shop.shopId)).entries.filter((e) => e.orderId === cancelled.id).length, 1, 'one refund')

      const delivered = await orderIn(app, shop, product, 'processing')
      const deliver = await act(app, shop, delivered.id, 'deliver', { value: 'a', values: ['b', 'c'] }, { 'idempotency-key': 'order-of-keys' })
      const reordered = await act(app, shop, delivered.id, 'deliver', { values: ['b', 'c'], value: 'a' }, { 'idempotency-key': 'order-of-keys' })
      t.equal(reordered.statusCode, 200, 'the same JSON with its keys in another order is the same request')
      t.equal(reordered.headers['idempotency-replayed'], 'true')
      t.equal(reordered.body, deliver.body)
      const reorderedValues = await act(app, shop, delivered.id, 'deliver', { values: ['c', 'b'], value: 'a' }, { 'idempotency-key': 'order-of-keys' })
      t.equal(reorderedValues.statusCode, 422, 'array order does matter')

      const posted = await postMessage(app, shop, order.id, 'hello', 'msg-1')
      const reposted = await postMessage(app, shop, order.id, 'hello', 'msg-1')
      t.equal(posted.statusCode, 201)
      t.equal(reposted.statusCode, 201, 'the 201 is replayed as 201')
      t.equal(reposted.body, posted.body)
      t.equal(reposted.headers['idempotency-replayed'], 'true')
      t.equal(await messageCount(app, shop, order.id), 1, 'one message')
    })

    t.test('a 4xx outcome is stored and replayed; 401 and schema refusals are not', async (t) => {
      const { app, shop, product } = await setup(t, overrides)
      const order = await buy(app, product)
      // Deliver before take is refused; the refusal is what this key means from now on.
      const refused = await act(app, shop, order.id, 'deliver', { value: 'K' }, { 'idempotency-key': 'early' })
      t.equal(refused.statusCode, 409)
      t.equal((await act(app, shop, order.id, 'take')).statusCode, 200)
      const replayed = await act(app, shop, order.id, 'deliver', { value: 'K' }, { 'idempotency-key': 'early' })
      t.equal(replayed.statusCode, 409, 'replayed, not run again (it would succeed now)')
      t.equal(replayed.body, refused.body)
      t.equal(replayed.headers['idempotency-replayed'], 'true')

      const missing = '00000000-0000-4000-8000-000000000000'
      const notFound = await act(app, shop, missing, 'take', undefined, { 'idempotency-key': 'nf' })
      t.equal(notFound.statusCode, 404)
      const notFoundAgain = await act(app, shop, missing, 'take', undefined, { 'idempotency-key': 'nf' })
      t.equal(notFoundAgain.headers['idempotency-replayed'], 'true')
      t.equal(notFoundAgain.body, notFound.body)

      const other = await buy(app, product)
      const unauthenticated = await app.inject({ method: 'POST', url: `/v1/orders/${other.id}/take`, headers: { authorization: 'Bearer service_sk_' + 'x'.repeat(40), 'idempotency-key': 'auth' } })
      t.equal(unauthenticated.statusCode, 401)
      const authenticated = await act(app, shop, other.id, 'take', undefined, { 'idempotency-key': 'auth' })
      t.equal(authenticated.statusCode, 200, 'the 401 was not stored')
      t.notOk(authenticated.headers['idempotency-replayed'])

      const third = await orderIn(app, shop, product, 'processing')
      const badBody = await act(app, shop, third.id, 'deliver', { value: 42 }, { 'idempotency-key': 'fix-me' })
      t.equal(badBody.statusCode, 400, 'refused by the schema before the key is claimed')
      const fixed = await act(app, shop, third.id, 'deliver', { value: '42' }, { 'idempotency-key': 'fix-me' })
      t.equal(fixed.statusCode, 200, 'the corrected request runs under the same key')

      for (const key of ['', 'x'.repeat(256), 'ключ']) {
        const res = await act(app, shop, third.id, 'cancel', {}, { 'idempotency-key': key })
        t.equal(res.statusCode, 400, `key ${JSON.stringify(key.slice(0, 10))} is refused`)
      }
      t.equal((await act(app, shop, third.id, 'cancel', {}, { 'idempotency-key': 'x'.repeat(255) })).statusCode, 200, '255 characters are fine')
    })

    t.test('the same key with another request: 422 IDEMPOTENCY_KEY_REUSED', async (t) => {
      const { app, shop, product } = await setup(t, overrides)
      const a = await orderIn(app, shop, product, 'processing')
      const b = await orderIn(app, shop, product, 'processing')
      t.equal((await act(app, shop, a.id, 'deliver', { value: 'one' }, { 'idempotency-key': 'k' })).statusCode, 200)
      const cases: Array<[string, () => ReturnType<typeof act>]> = [
        ['another body', () => act(app, shop, a.id, 'deliver', { value: 'two' }, { 'idempotency-key': 'k' })],
        ['no body', () => act(app, shop, a.id, 'deliver', undefined, { 'idempotency-key': 'k' })],
        ['another order', () => act(app, shop, b.id, 'deliver', { value: 'one' }, { 'idempotency-key': 'k' })],
        ['another action', () => act(app, shop, a.id, 'cancel', { value: 'one' }, { 'idempotency-key': 'k' })],
        ['another route', () => postMessage(app, shop, a.id, 'one', 'k')]
      ]
      for (const [name, send] of cases) {
        const res = await send()
        t.equal(res.statusCode, 422, name)
        t.equal(res.json().error.code, 'IDEMPOTENCY_KEY_REUSED', name)
      }
      const untouched = await app.inject({ method: 'GET', url: `/v1/orders/${b.id}`, headers: shop.headers })
      t.equal(untouched.json().data.order.status, 'processing', 'the reused key did not act on the other order')
      t.equal((await ledger(app, shop.shopId)).entries.length, 0, 'nor cancel anything')
    })

    t.test('while the first request runs: 409 IDEMPOTENCY_IN_PROGRESS', async (t) => {
      const { app, shop, product } = await setup(t, overrides)
      const order = await orderIn(app, shop, product, 'processing')
      const lock = await holdOrderRow(order.id)
      const first = act(app, shop, order.id, 'cancel', {}, { 'idempotency-key': 'slow' })
      await lock.waitForWaiter()
      const second = await act(app, shop, order.id, 'cancel', {}, { 'idempotency-key': 'slow' })
      t.equal(second.statusCode, 409)
      t.equal(second.json().error.code, 'IDEMPOTENCY_IN_PROGRESS')
      await lock.release()
      const done = await first
      t.equal(done.statusCode, 200, done.body)
      const after = await act(app, shop, order.id, 'cancel', {}, { 'idempotency-key': 'slow' })
      t.equal(after.headers['idempotency-replayed'], 'true', 'once finished, the key replays')
      t.equal(after.body, done.body)
      t.equal((await ledger(app, shop.shopId)).entries.length, 1)
    })

    t.test('keys are scoped to the shop', async (t) => {
      const { app, shop, product } = await setup(t, overrides)
      const other = await createShop(app, 'Other shop')
      const otherProduct = await createProduct(app, other)
      const mine = await buy(app, product)
      const theirs = await buy(app, otherProduct)
      const a = await act(app, shop, mine.id, 'take', undefined, { 'idempotency-key': 'shared' })
      const b = await act(app, other, theirs.id, 'take', undefined, { 'idempotency-key': 'shared' })
      t.equal(a.statusCode, 200)
      t.equal(b.statusCode, 200, 'not 422: another shop\'s key space')
      t.notOk(b.headers['idempotency-replayed'])
      t.equal(b.json().data.order.id, theirs.id)
      const ma = await postMessage(app, shop, mine.id, 'same', 'm')
      const mb = await postMessage(app, other, theirs.id, 'same', 'm')
      t.equal(ma.statusCode, 201)
      t.equal(mb.statusCode, 201)
      t.notOk(mb.headers['idempotency-replayed'])
    })

    t.test('a deliver\'s record is sealed; a take\'s, whose answer holds no value, is stored as sent', async (t) => {
      const { app, shop, product } = await setup(t, { ...overrides, VALUES_ENCRYPTION_KEY: stockKey() })
      const order = await buy(app, product)
      const take = await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'sealing-take' })
      const value = 'SEALED-VALUE-0123456789'
      const deliver = await act(app, shop, order.id, 'deliver', { value }, { 'idempotency-key': 'sealing-deliver' })
      t.equal(take.statusCode, 200)
      t.equal(deliver.statusCode, 200)
      t.ok(deliver.body.includes(value), 'the deliver\'s answer carries the value')
      const delivered = await storedResponse(store, `${shop.shopId}:sealing-deliver`)
      t.ok(delivered.keyId, 'the deliver\'s record names the key that sealed it')
      t.notOk(JSON.stringify(delivered).includes(value.slice(0, 6)), 'and holds no part of the value')
      const taken = await storedResponse(store, `${shop.shopId}:sealing-take`)
      t.equal(taken.keyId, undefined, 'the take\'s record is not sealed')
      t.equal(taken.body, take.body, 'it holds the answer as sent')
      t.same(take.json().data.order.deliveredValues, [], 'which holds no value')
      for (const [action, first, key] of [['take', take, 'sealing-take'], ['deliver', deliver, 'sealing-deliver']] as const) {
        const again = await act(app, shop, order.id, action, action === 'deliver' ? { value } : undefined, { 'idempotency-key': key })
        t.equal(again.headers['idempotency-replayed'], 'true')
        t.equal(again.body, first.body, `the ${action} replayed byte for byte`)
      }
    })

    t.test('a key is forgotten after IDEMPOTENCY_TTL_S', async (t) => {
      const { app, shop, product } = await setup(t, { ...overrides, IDEMPOTENCY_TTL_S: 1 })
      const order = await buy(app, product)
      t.equal((await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'ttl' })).statusCode, 200)
      t.equal((await postMessage(app, shop, order.id, 'once', 'ttl-m')).statusCode, 201)
      t.equal((await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'ttl' })).headers['idempotency-replayed'], 'true', 'remembered within the TTL')
      await sleep(1300)
      const take = await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'ttl' })
      t.equal(take.statusCode, 409, 'runs again: the state machine refuses a second take')
      t.equal(take.json().error.code, 'ORDER_INVALID_STATUS')
      t.notOk(take.headers['idempotency-replayed'])
      const message = await postMessage(app, shop, order.id, 'once', 'ttl-m')
      t.equal(message.statusCode, 201)
      t.notOk(message.headers['idempotency-replayed'])
      t.equal(await messageCount(app, shop, order.id), 2, 'a new message after expiry')
    })

    t.test('two instances receiving the same key at once run it once', async (t) => {
      const { app, shop, product } = await setup(t, overrides)
      const twin = await build(t, overrides)
      const order = await buy(app, product)
      // A message has no state machine behind it: only the key stops a second one.
      const responses = await Promise.all(Array.from({ length: 30 }, (_, i) =>
        postMessage(i % 2 === 0 ? app : twin, shop, order.id, 'exactly once', 'burst')))
      const created = responses.filter((r) => r.statusCode === 201)
      const busy = responses.filter((r) => r.statusCode === 409)
      t.equal(created.length + busy.length, 30, 'each answer is the message or "in progress"')
      t.ok(busy.every((r) => r.json().error.code === 'IDEMPOTENCY_IN_PROGRESS'))
      t.equal(created.filter((r) => r.headers['idempotency-replayed'] !== 'true').length, 1, 'one request ran')
      t.ok(created.every((r) => r.body === created[0].body), 'the rest are replays of it')
      t.equal(await messageCount(app, shop, order.id), 1, 'one message stored')
    })
  })
}

t.test('a 5xx outcome is not stored: the same key runs the request again', async (t) => {
  const { app, shop, product } = await setup(t, {})
  const order = await buy(app, product)
  // The take claims its key, then waits for the order's row; cancelling that wait
  // fails the handler with a 500. (Cutting the connection there instead would crash
  // the process: postgres.js 3.4.9 writes its ROLLBACK to the closed socket,
  // porsager/postgres#1208.)
  const lock = await holdOrderRow(order.id)
  const pending = act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'fails-once' })
  await lock.waitForWaiter()
  await lock.cancelWaiters()
  const failed = await pending
  t.equal(failed.statusCode, 500, failed.body)
  t.equal(failed.json().error.code, 'INTERNAL_ERROR')
  await lock.release()

  const retried = await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': 'fails-once' })
  t.equal(retried.statusCode, 200, retried.body)
  t.notOk(retried.headers['idempotency-replayed'], 'the 500 was not stored, so the take ran')
  t.match(retried.json().data.order, { status: 'processing', assigneeType: 'api' })
})
