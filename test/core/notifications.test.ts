// Notifications after commit (db/core/notifications.ts), on real Postgres: sent only
// when the transaction commits, batched within Postgres's payload limit, and
// sent again once a lost connection is back.
import { setTimeout as pause } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import postgres from 'postgres'
import t from 'tap'
import { openDatabase } from '../../db/core/client.js'
import { Notifier, notifyAfterCommit, payloadsOf } from '../../db/core/notifications.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'
import { until } from '../fixtures/until.js'
import { fileDatabaseUrl } from '../helper.js'

/** Payloads heard on `channel` of the test database. */
async function listener (t: { teardown: (fn: () => unknown) => void }, channel: string) {
  const client = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  const heard: string[] = []
  let notifications = 0
  await client.listen(channel, (notification) => {
    notifications++
    heard.push(...payloadsOf(notification))
  })
  t.teardown(() => client.end())
  return { heard, notifications: () => notifications }
}

t.test('sent when the transaction commits, never when it rolls back', async (t) => {
  const database = await openDatabase({ url: await fileDatabaseUrl(), poolMax: 2 })
  t.teardown(() => database.close())
  const { heard } = await listener(t, 'test_commit')

  await database.db.transaction(async (tx) => {
    notifyAfterCommit(tx, 'test_commit', 'committed')
    await tx.execute(sql`select 1`)
  })
  await t.rejects(database.db.transaction(async (tx) => {
    notifyAfterCommit(tx, 'test_commit', 'rolled back')
    throw new Error('roll back')
  }))
  await database.db.transaction(async (tx) => { notifyAfterCommit(tx, 'test_commit', 'second') })
  await until(() => heard.length >= 2)
  await pause(200)
  t.same(heard, ['committed', 'second'])
  t.throws(() => notifyAfterCommit(database.db as never, 'test_commit', 'x'), /needs a transaction/)
})

t.test('a burst goes out in as few NOTIFYs as fit under the payload limit', async (t) => {
  const client = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  t.teardown(() => client.end())
  const notifier = new Notifier((channel, payload) => client`select pg_notify(${channel}, ${payload})`)
  const { heard, notifications } = await listener(t, 'test_burst')
  const payloads = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(4, '0')}-4e1b-4c0d-9a55-5f0d3c1e0a11-shop-id`)
  for (const payload of payloads) notifier.notify('test_burst', payload)
  for (const payload of payloads.slice(0, 10)) notifier.notify('test_burst', payload)
  await until(() => heard.length >= 1000)
  await notifier.close()
  t.same([...new Set(heard)].sort(), payloads, 'every payload')
  // The first went out at once, alone; the repeats of the others were still queued and merged.
  t.equal(heard.length, 1001, 'repeats of what is still queued are merged')
  t.ok(notifications() < 20, `${notifications()} NOTIFYs for 1 000 payloads`)
})

t.test('what could not be sent goes out once the connection is back', async (t) => {
  const url = await fileDatabaseUrl()
  const target = new URL(url)
  const relay = await tcpRelay(target.hostname, Number(target.port || 5432))
  t.teardown(relay.cut)
  const client = postgres(viaRelay(url, relay), { max: 1, onnotice: () => {}, connect_timeout: 2 })
  t.teardown(() => client.end({ timeout: 1 }))
  const notifier = new Notifier((channel, payload) => client`select pg_notify(${channel}, ${payload})`)
  const { heard } = await listener(t, 'test_retry')

  notifier.notify('test_retry', 'before')
  await until(() => heard.length >= 1)
  await relay.cut()
  notifier.notify('test_retry', 'during')
  await pause(1500)
  t.same(heard, ['before'], 'nothing while the database is away')
  await relay.restore()
  await until(() => heard.length >= 2)
  t.same(heard, ['before', 'during'])
  await notifier.close()
})
