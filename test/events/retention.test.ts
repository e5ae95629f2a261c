// Event retention (docs/events.md): events older than EVENT_RETENTION_DAYS
// are deleted; a cursor that lost events to it is 410 CURSOR_EXPIRED, exactly;
// the cleanup is safe on several instances at once and runs on start.
import { setTimeout as pause } from 'node:timers/promises'
import postgres from 'postgres'
import t from 'tap'
import { pruneEvents } from '../../db/events/store.js'
import { loadConfig } from '../../plugins/config.js'
import { feed, page, readAll } from '../fixtures/events.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { build, createShop, fileDatabaseUrl, type App, type ShopFixture } from '../helper.js'

let sql: postgres.Sql
t.before(async () => { sql = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} }) })
t.teardown(() => sql.end())

/** Moves the shop's events with these seqs `days` into the past. */
async function age (shop: ShopFixture, seqs: number[], days: number) {
  await sql`update events set created_at = created_at - make_interval(days => ${days}) where shop_id = ${shop.shopId} and seq = any(${seqs})`
}

/** A shop with `count` events (purchases) and the cursor after each (index 0: before any). */
async function shopWithEvents (app: App, count: number) {
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const cursors = [(await page(app, shop)).nextCursor]
  for (let i = 0; i < count; i++) {
    await buy(app, product)
    cursors.push((await readAll(app, shop, cursors[i])).cursor)
  }
  return { shop, cursors }
}

t.test('a cursor that lost events is 410; the rest of the feed stays', async (t) => {
  const app = await build(t)
  const a = await shopWithEvents(app, 3)
  const b = await shopWithEvents(app, 2)
  const before = (await readAll(app, a.shop)).events
  await age(a.shop, [1, 2], 31)
  await age(b.shop, [1], 31)
  await pruneEvents(app.db, 30)

  for (const i of [0, 1]) {
    const res = await feed(app, a.shop, `after=${a.cursors[i]}`)
    t.equal(res.statusCode, 410, `cursor ${i}: its next event is gone`)
    t.equal(res.json().error.code, 'CURSOR_EXPIRED')
  }
  t.same((await page(app, a.shop, `after=${a.cursors[2]}`)).events, [before[2]], 'a cursor at the edge still reads on')
  t.same((await page(app, a.shop)).events, [before[2]], 'without a cursor: from the oldest retained event')
  t.same((await page(app, a.shop, 'after=latest')).nextCursor, a.cursors[3])
  t.equal((await feed(app, a.shop, `after=${a.cursors[3]}&wait=1`)).statusCode, 200)

  t.equal((await feed(app, b.shop, `after=${b.cursors[0]}`)).statusCode, 410)
  t.equal((await page(app, b.shop, `after=${b.cursors[1]}`)).events.length, 1, 'each shop has its own watermark')

  await pruneEvents(app.db, 30)
  t.equal((await page(app, a.shop, `after=${a.cursors[2]}`)).events.length, 1, 'a second run deletes nothing more')
})

t.test('the watermark is exact when createdAt and commit order differ', async (t) => {
  const app = await build(t)
  const { shop, cursors } = await shopWithEvents(app, 3)
  // A transaction stamps its start time: event 3 can be older than event 2.
  await age(shop, [1, 3], 31)
  await pruneEvents(app.db, 30)
  for (const i of [0, 1, 2]) t.equal((await feed(app, shop, `after=${cursors[i]}`)).statusCode, 410, `cursor ${i}`)
  t.same(await page(app, shop, `after=${cursors[3]}`), { events: [], nextCursor: cursors[3] })
  t.same(await page(app, shop), { events: [], nextCursor: cursors[3] }, 'nothing retained: the feed starts at the newest position')
})

t.test('two instances cleaning up at once, in small batches', async (t) => {
  const a = await build(t)
  const b = await build(t)
  const shops = await Promise.all([shopWithEvents(a, 12), shopWithEvents(a, 12), shopWithEvents(b, 12)])
  for (const { shop } of shops) await age(shop, Array.from({ length: 10 }, (_, i) => i + 1), 40)
  await Promise.all([pruneEvents(a.db, 30, 3), pruneEvents(b.db, 30, 3), pruneEvents(a.db, 30, 7)])
  for (const { shop, cursors } of shops) {
    t.equal((await feed(a, shop, `after=${cursors[9]}`)).statusCode, 410)
    t.equal((await page(b, shop, `after=${cursors[10]}`)).events.length, 2)
    t.equal((await page(a, shop)).events.length, 2, 'exactly the two recent events are left')
  }
})

t.test('EVENT_RETENTION_DAYS: validated, default 30, applied by a cleanup at start', async (t) => {
  t.equal(loadConfig({}).EVENT_RETENTION_DAYS, 30)
  t.equal(loadConfig({ EVENT_RETENTION_DAYS: '7' }).EVENT_RETENTION_DAYS, 7)
  for (const bad of ['0', '-1', 'a month', '1.5', '3651']) {
    t.throws(() => loadConfig({ EVENT_RETENTION_DAYS: bad }), /EVENT_RETENTION_DAYS/, bad)
  }

  const app = await build(t)
  const { shop, cursors } = await shopWithEvents(app, 2)
  await age(shop, [1], 3)
  await pruneEvents(app.db, 30)
  t.equal((await feed(app, shop, `after=${cursors[0]}`)).statusCode, 200, 'three days old is within 30 days')

  const strict = await build(t, { EVENT_RETENTION_DAYS: 2 })
  let status = 0
  for (let i = 0; i < 100 && status !== 410; i++) {
    status = (await feed(strict, shop, `after=${cursors[0]}`)).statusCode
    if (status !== 410) await pause(50)
  }
  t.equal(status, 410, 'an instance keeping 2 days removed it when it started')
})
