// The events feed on the embedded default (PGlite in process, no Redis): the
// wake-up comes from PGlite's own LISTEN/NOTIFY, and the retention SQL runs there too.
import { sql } from 'drizzle-orm'
import t from 'tap'
import { pruneEvents } from '../../db/events/store.js'
import { feed, page, readAll, untilHeld, type FeedEvent } from '../fixtures/events.js'
import { act, buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { buildEmbedded, createShop, internalHeaders } from '../helper.js'

const app = await buildEmbedded(t, { PUBLIC_BASE_URL: 'http://files.test', RATE_LIMIT_MAX: 10_000 })
t.equal(app.dbConnection.kind, 'pglite')

t.test('events, long polling and a burst on PGlite', async (t) => {
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const { nextCursor: start } = await page(app, shop, 'after=latest')

  const held = feed(app, shop, `after=${start}&wait=20`)
  await untilHeld(app, 1)
  const order = await buy(app, product)
  const answer = (await held).json().data
  t.same(answer.events.map((e: FeedEvent) => [e.type, e.data.order.id]), [['order.paid', order.id]], 'woken by the commit')

  // 40 writers at once, a follower holding long polls meanwhile.
  const received: FeedEvent[] = []
  const following = (async () => {
    let cursor = answer.nextCursor
    for (const until = Date.now() + 60_000; received.length < 120 && Date.now() < until;) {
      const next = await page(app, shop, `after=${cursor}&wait=5`)
      received.push(...next.events)
      cursor = next.nextCursor
    }
  })()
  await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    const bought = await buy(app, product)
    await act(app, shop, bought.id, 'take')
    await app.inject({ method: 'POST', url: `/internal/v1/orders/${bought.id}/messages`, headers: internalHeaders, payload: { text: `hello ${i}` } })
  }))
  await following
  t.equal(received.length, 120)
  t.equal(new Set(received.map((e) => e.id)).size, 120, 'each once')
  t.same((await readAll(app, shop, answer.nextCursor)).events, received, 'in the feed\'s order')
})

t.test('retention on PGlite', async (t) => {
  const shop = await createShop(app, 'Retention')
  const product = await createProduct(app, shop)
  const { nextCursor: start } = await page(app, shop)
  await buy(app, product)
  await buy(app, product)
  const second = (await readAll(app, shop)).events[1]
  await app.db.execute(sql`update events set created_at = created_at - interval '40 days' where shop_id = ${shop.shopId} and seq = 1`)
  await pruneEvents(app.db, 30)
  t.equal((await feed(app, shop, `after=${start}`)).statusCode, 410)
  t.same((await page(app, shop)).events, [second])
})
