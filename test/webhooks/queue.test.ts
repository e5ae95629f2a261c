// The webhook queue's leases (db/webhooks/queue.ts) on real Postgres,
// without a worker: leases at once never share a row, the per-endpoint places
// hold, an outcome counts only under the lease that made the attempt, and a
// lease that ran out (its instance died) or was given back makes the row due.
import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import t from 'tap'
import { openDatabase, type Db } from '../../db/core/client.js'
import { shops } from '../../db/tables.js'
import { webhookDeliveries } from '../../db/webhooks/tables.js'
import { createEndpoint } from '../../db/webhooks/endpoints.js'
import { leaseSends, recordAttempt, releaseSends, type LeaseOptions } from '../../db/webhooks/queue.js'
import { fileDatabaseUrl } from '../helper.js'

const none = new Map<string, number>()
const options = (overrides: Partial<LeaseOptions> = {}): LeaseOptions => ({ limit: 100, endpointLimit: 100, inFlight: none, leaseMs: 60_000, ...overrides })

async function setup (t: { teardown: (fn: () => unknown) => void }) {
  const database = await openDatabase({ url: await fileDatabaseUrl(), poolMax: 8 })
  t.teardown(() => database.close())
  const db = database.db
  // Each test starts with an empty queue: a lease sees every endpoint's deliveries.
  await db.delete(webhookDeliveries)
  const [shop] = await db.insert(shops).values({ name: 'queue test' }).returning({ id: shops.id })
  const endpoint = async () => (await db.transaction((tx) =>
    createEndpoint(tx, shop.id, { url: 'https://hooks.example.com/x', eventTypes: [], description: '' })))!.endpoint.id
  return { db, shopId: shop.id, endpoint }
}

/** `n` due test deliveries of an endpoint (the body kept in `payload`, as the test call does). */
async function enqueue (db: Db, endpointId: string, n: number, dueInSeconds = 0) {
  const rows = Array.from({ length: n }, (_, i) => ({
    endpointId,
    webhookId: randomUUID(),
    eventType: 'webhook.test',
    payload: { timestamp: new Date().toISOString(), data: { n: i } },
    nextAttemptAt: sql`now() + make_interval(secs => ${dueInSeconds})`
  }))
  return (await db.insert(webhookDeliveries).values(rows).returning({ id: webhookDeliveries.id })).map((r) => r.id)
}

const row = async (db: Db, id: string) => (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]

t.test('concurrent leases never take the same delivery, and together take every due one', async (t) => {
  const { db, endpoint } = await setup(t)
  const endpoints = [await endpoint(), await endpoint(), await endpoint()]
  for (const id of endpoints) await enqueue(db, id, 30)
  await enqueue(db, endpoints[0], 5, 3600) // not due yet

  const leases = await Promise.all(Array.from({ length: 6 }, () => leaseSends(db, options({ limit: 20 }))))
  const ids = leases.flat().map((d) => d.id)
  t.equal(new Set(ids).size, ids.length, 'no delivery leased twice')
  const again = await leaseSends(db, options())
  t.equal(ids.length + again.length, 90, 'every due delivery leased once, none that is not due')
  for (const lease of leases) t.equal(new Set(lease.map((d) => d.leaseToken)).size <= 1, true, 'one lease token per call')
  const first = leases.flat()[0]
  t.equal(first.attempts, 1, 'the lease counts the attempt')
  t.equal(first.eventType, 'webhook.test')
  t.match(first.secrets[0], /^whsec_/)
})

t.test('per-endpoint places: endpointLimit, minus what is in flight here, and a failing endpoint gets one', async (t) => {
  const { db, endpoint } = await setup(t)
  const a = await endpoint()
  const b = await endpoint()
  await enqueue(db, a, 10)
  await enqueue(db, b, 10)
  const leased = await leaseSends(db, options({ endpointLimit: 3, inFlight: new Map([[a, 2]]) }))
  t.equal(leased.filter((d) => d.endpointId === a).length, 1, '3 places less 2 in flight')
  t.equal(leased.filter((d) => d.endpointId === b).length, 3)

  await db.execute(sql`update webhook_endpoints set failing_since = now() where id = ${b}`)
  const next = await leaseSends(db, options({ endpointLimit: 3 }))
  t.equal(next.filter((d) => d.endpointId === b).length, 1, 'a failing endpoint: one attempt at a time')
  t.ok(next.every((d) => d.endpointFailing === (d.endpointId === b)))
  const capped = await leaseSends(db, options({ limit: 2, endpointLimit: 100 }))
  t.equal(capped.length, 2, 'limit caps the whole lease')
})

t.test('a lease passes over endpoints whose due deliveries another instance holds', async (t) => {
  const { db, endpoint } = await setup(t)
  const busy = await endpoint()
  const idle = await endpoint()
  const [held] = await enqueue(db, busy, 1, -60) // the oldest head, due a minute ago
  const [waiting] = await enqueue(db, idle, 1)
  const first = await leaseSends(db, options({ limit: 1 }))
  t.same(first.map((d) => d.id), [held], 'the oldest due delivery first')
  // Another instance (nothing in flight of its own) leases next: the busy endpoint's
  // head is leased, so its one place goes to the other endpoint's due delivery.
  const second = await leaseSends(db, options({ limit: 1 }))
  t.same(second.map((d) => d.id), [waiting], 'the next endpoint with a due delivery, not an empty lease')
  t.same(await leaseSends(db, options()), [], 'nothing left that is due and free')
})

t.test('an outcome counts only under the lease that made the attempt', async (t) => {
  const { db, endpoint } = await setup(t)
  const [id] = await enqueue(db, await endpoint(), 1)
  const [delivery] = await leaseSends(db, options({ leaseMs: 1000 }))
  t.equal(delivery.id, id)
  t.equal((await leaseSends(db, options())).length, 0, 'a leased delivery is not leased again')

  // Its instance "died": the lease runs out and another lease takes it.
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const [retaken] = await leaseSends(db, options())
  t.equal(retaken.id, id, 'leasable again once the lease ran out')
  t.not(retaken.leaseToken, delivery.leaseToken)
  t.equal(retaken.attempts, 2)

  await recordAttempt(db, delivery, { ok: true, statusCode: 200, error: null }, [5])
  t.equal((await row(db, id)).status, 'pending', 'the late outcome of the expired lease changes nothing')
  await recordAttempt(db, retaken, { ok: false, statusCode: 500, error: 'HTTP 500' }, [3600, 3600])
  const failed = await row(db, id)
  t.equal(failed.status, 'pending', 'a failed attempt with the schedule left: pending')
  t.equal(failed.lastStatusCode, 500)
  t.equal(failed.leaseToken, null, 'the lease is given up')
  t.ok(failed.nextAttemptAt! > new Date(Date.now() + 3_000_000), 'due after the schedule\'s delay')
  t.equal((await leaseSends(db, options())).length, 0)

  await db.update(webhookDeliveries).set({ nextAttemptAt: sql`now()` }).where(eq(webhookDeliveries.id, id))
  const [third] = await leaseSends(db, options())
  await recordAttempt(db, third, { ok: false, statusCode: null, error: 'timeout' }, [3600, 3600])
  const ended = await row(db, id)
  t.equal(ended.status, 'failed', 'the schedule used up (two delays: three attempts): failed')
  t.equal(ended.nextAttemptAt, null)
})

t.test('a success ends the delivery; released leases are due again at once', async (t) => {
  const { db, endpoint } = await setup(t)
  const ids = await enqueue(db, await endpoint(), 2)
  const leased = await leaseSends(db, options())
  t.equal(leased.length, 2)
  await recordAttempt(db, leased[0], { ok: true, statusCode: 204, error: null }, [5])
  const done = await row(db, leased[0].id)
  t.equal(done.status, 'succeeded')
  t.equal(done.lastStatusCode, 204)
  t.equal(done.nextAttemptAt, null)

  await releaseSends(db, [leased[1]])
  const released = await row(db, leased[1].id)
  t.equal(released.leaseToken, null)
  t.match(released.lastError, /cut short by a shutdown/)
  const [again] = await leaseSends(db, options())
  t.equal(again.id, leased[1].id, 'leased again at once')
  t.same(new Set(ids), new Set(leased.map((d) => d.id)))
})
