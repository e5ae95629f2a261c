// The events feed under concurrency (docs/events.md): transactions that
// commit in another order than they started, forced deterministically with row
// locks, and a burst of writers on two instances followed from a third. The
// guarantee: a follower passing each nextCursor gets every event exactly once,
// in commit order. Every event is written by the service's own statements
// (db/events/statements.ts): its HTTP writes, and the stock writes' append inside
// a transaction of theirs.
import postgres from 'postgres'
import t from 'tap'
import { recordSignals } from '../../db/stock/take.js'
import { page, readAll, type FeedEvent } from '../fixtures/events.js'
import { act, buy, confirm } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { waitUntil } from '../fixtures/until.js'
import { build, createShop, fileDatabaseUrl, internalHeaders } from '../helper.js'

let sql: postgres.Sql
t.before(async () => { sql = postgres(await fileDatabaseUrl(), { max: 3, onnotice: () => {} }) })
t.teardown(() => sql.end())

/** Resolves once a statement of this database waits for a lock (fails after 10 s). */
const untilBlocked = () => waitUntil('a statement waiting for a lock', async () => {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
  return n > 0
}, 10_000, 20)

const summary = (events: FeedEvent[]) => events.map((e) => `${e.type} ${e.data.order?.id ?? e.data.orderId ?? e.data.productId}`)

t.test('the later-started transaction commits first: the earlier one still comes after the reader\'s cursor, once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const x = await buy(app, product)
  const y = await buy(app, product)
  const { cursor: start } = await readAll(app, shop)

  const blocker = await sql.reserve()
  await blocker`begin`
  await blocker`select id from orders where id = ${x.id} for update`
  // A starts first and stops at its UPDATE of order x, before its event takes a seq.
  const takeX = act(app, shop, x.id, 'take')
  await untilBlocked()
  // B starts later and commits first.
  t.equal((await act(app, shop, y.id, 'take')).statusCode, 200)
  // A reader between the two commits.
  const between = await page(app, shop, `after=${start}`)
  t.same(summary(between.events), [`order.taken ${y.id}`])
  await blocker`commit`
  blocker.release()
  t.equal((await takeX).statusCode, 200, 'A commits last')

  const after = await page(app, shop, `after=${between.nextCursor}`)
  t.same(summary(after.events), [`order.taken ${x.id}`], 'A\'s event comes after the reader\'s cursor')
  t.same(summary((await readAll(app, shop, start)).events), [`order.taken ${y.id}`, `order.taken ${x.id}`], 'each once, in commit order')
})

t.test('a transaction holding a seq makes later ones wait: nothing commits past an uncommitted event', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const y = await buy(app, product)
  const { cursor: start } = await readAll(app, shop)

  // A (a stock write's transaction: its signals appended as every stock write appends them) takes its seqs and stays open.
  let seqTaken!: () => void
  let finishA!: () => void
  const taken = new Promise<void>((resolve) => { seqTaken = resolve })
  const gate = new Promise<void>((resolve) => { finishA = resolve })
  const signals = [
    { type: 'stock.low' as const, data: { productId: product.id, optionId: null, available: 1, lowStockThreshold: 1 } },
    { type: 'stock.empty' as const, data: { productId: product.id, optionId: null, available: 0 } }
  ]
  const a = app.db.transaction(async (tx) => {
    await recordSignals(tx, shop.shopId, signals)
    seqTaken()
    await gate
  })
  await taken
  // B starts later and would take the next seq: it waits for A's commit.
  const takeY = act(app, shop, y.id, 'take')
  await untilBlocked()
  const between = await page(app, shop, `after=${start}`)
  t.same(between, { events: [], nextCursor: start }, 'the reader sees neither: A is uncommitted, B waits')
  finishA()
  await a
  t.equal((await takeY).statusCode, 200)

  const after = await page(app, shop, `after=${between.nextCursor}`)
  t.same(summary(after.events), [`stock.low ${product.id}`, `stock.empty ${product.id}`, `order.taken ${y.id}`], 'all, once, in commit order')
  const rows = await sql<{ seq: number, type: string }[]>`select seq::int as seq, type from events where shop_id = ${shop.shopId} order by seq`
  t.same(rows.map((r) => r.seq), rows.map((_, i) => i + 1), 'the shop\'s seqs are dense')
  t.same(rows.slice(-3).map((r) => r.type), ['stock.low', 'stock.empty', 'order.taken'], 'A\'s two consecutive seqs, then B\'s')
})

t.test('500 events from 20 writers on two instances, followed on a third: each once, per-order order kept', async (t) => {
  const options = { RATE_LIMIT_MAX: 100_000, DB_POOL_MAX: 4 }
  const writers = [await build(t, options), await build(t, options)]
  const follower = await build(t, options)
  const shop = await createShop(writers[0])
  const product = await createProduct(writers[0], shop)
  const { nextCursor: start } = await page(follower, shop, 'after=latest')
  const lifecycle = ['order.paid', 'order.taken', 'message.created', 'order.delivered', 'order.completed']
  const total = 20 * 5 * lifecycle.length

  const received: FeedEvent[] = []
  const following = (async () => {
    let cursor = start
    for (const until = Date.now() + 120_000; received.length < total && Date.now() < until;) {
      const next = await page(follower, shop, `after=${cursor}&limit=100&wait=5`)
      received.push(...next.events)
      cursor = next.nextCursor
    }
    return cursor
  })()

  const ok = (res: { statusCode: number, body: string }, status = 200) => { if (res.statusCode !== status) throw new Error(`${res.statusCode} ${res.body}`) }
  await Promise.all(Array.from({ length: 20 }, async (_, w) => {
    for (let i = 0; i < 5; i++) {
      // Each step of an order on the other instance than the one before.
      const on = (step: number) => writers[(w + i + step) % 2]
      const order = await buy(on(0), product)
      ok(await act(on(1), shop, order.id, 'take'))
      ok(await on(2).inject({ method: 'POST', url: `/internal/v1/orders/${order.id}/messages`, headers: internalHeaders, payload: { text: `writer ${w}, order ${i}` } }), 201)
      ok(await act(on(3), shop, order.id, 'deliver', { value: `KEY-${w}-${i}` }))
      ok(await confirm(on(4), order.id))
    }
  }))
  const cursor = await following

  t.equal(received.length, total, 'every event arrived')
  t.equal(new Set(received.map((e) => e.id)).size, total, 'none twice')
  const byOrder = new Map<string, string[]>()
  for (const e of received) {
    const id = e.data.order?.id ?? e.data.orderId
    byOrder.set(id, [...(byOrder.get(id) ?? []), e.type])
  }
  t.equal(byOrder.size, 100)
  t.ok([...byOrder.values()].every((types) => types.join() === lifecycle.join()), 'every order\'s events in the order of its changes')
  const again = await readAll(follower, shop, start)
  t.same(again.events.map((e) => e.id), received.map((e) => e.id), 'reading the feed again gives the same sequence')
  t.equal(again.cursor, cursor)
})

t.test('an endpoint committed while a one-statement take waits for the shop row gets the take\'s event', async (t) => {
  // The take's statement takes its snapshot before it waits for the shop row; the
  // event's deliveries are inserted by a trigger after the wait, with a snapshot of
  // their own, so they see the endpoint (as a transaction's next statement would).
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)

  const blocker = await sql.reserve()
  await blocker`begin`
  // What creating an endpoint does first (db/webhooks/endpoints.ts): the shop row's lock.
  await blocker`select id from shops where id = ${shop.shopId} for no key update`
  const take = act(app, shop, order.id, 'take')
  await untilBlocked()
  const [endpoint] = await blocker<{ id: string }[]>`
    insert into webhook_endpoints (shop_id, url, secret) values (${shop.shopId}, 'https://hooks.example.com/a', 'whsec_test')
    returning id`
  await blocker`commit`
  blocker.release()
  t.equal((await take).statusCode, 200)

  const rows = await sql<{ type: string }[]>`
    select e.type from webhook_deliveries d join events e on e.id = d.event_id where d.endpoint_id = ${endpoint.id}`
  t.same(rows.map((r) => r.type), ['order.taken'], 'the take\'s event is queued for the new endpoint, once')
})
