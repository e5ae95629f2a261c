import postgres from 'postgres'
import t, { type Test } from 'tap'
import { createProduct } from '../fixtures/products.js'
import { buy, ISO_MS, postAsBuyer } from '../fixtures/orders.js'
import { build, createShop, fileDatabaseUrl, internalHeaders, type App, type ShopFixture } from '../helper.js'

interface Message { id: string, senderRole: string, text: string, createdAt: string }

function post (app: App, shop: ShopFixture, orderId: string, payload: unknown) {
  return app.inject({ method: 'POST', url: `/v1/orders/${orderId}/messages`, headers: shop.headers, payload: payload as object })
}

async function read (app: App, shop: ShopFixture, orderId: string, query = ''): Promise<{ messages: Message[], nextCursor: string | null }> {
  const res = await app.inject({ method: 'GET', url: `/v1/orders/${orderId}/messages${query}`, headers: shop.headers })
  if (res.statusCode !== 200) throw new Error(`read messages: ${res.statusCode} ${res.body}`)
  return res.json().data
}

async function setup (t: Test) {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  return { app, shop, product, order }
}

t.test('posting: roles, trimming, length rules', async (t) => {
  const { app, shop, order } = await setup(t)

  const seller = await post(app, shop, order.id, { text: '  Your key is on its way.\n' })
  t.equal(seller.statusCode, 201, seller.body)
  const message = seller.json().data.message
  t.match(message, { senderRole: 'seller', text: 'Your key is on its way.' })
  t.match(message.createdAt, ISO_MS)
  t.match(message.id, /^[0-9a-f-]{36}$/)

  const buyer = await postAsBuyer(app, order.id, 'Thanks!')
  t.equal(buyer.statusCode, 201, buyer.body)
  t.equal(buyer.json().data.message.senderRole, 'buyer')

  const accepted: Array<[string, string, string]> = [
    ['one character', 'x', 'x'],
    ['4000 characters', 'a'.repeat(4000), 'a'.repeat(4000)],
    ['4000 after trimming', ` ${'b'.repeat(4000)}\t`, 'b'.repeat(4000)],
    ['4000 emoji (code points, not UTF-16 units)', '😀'.repeat(4000), '😀'.repeat(4000)],
    ['unicode unchanged', 'Привет, 世界 — «ok» \u200b!', 'Привет, 世界 — «ok» \u200b!']
  ]
  for (const [name, text, stored] of accepted) {
    const res = await post(app, shop, order.id, { text })
    t.equal(res.statusCode, 201, name)
    t.equal(res.json().data.message.text, stored, name)
  }

  const refused: Array<[string, unknown]> = [
    ['empty', { text: '' }],
    ['whitespace only', { text: ' \n\t ' }],
    ['4001 characters', { text: 'a'.repeat(4001) }],
    ['4001 emoji', { text: '😀'.repeat(4001) }],
    ['NUL', { text: 'a\u0000b' }],
    ['missing text', {}],
    ['not a string', { text: 42 }],
    ['no body', undefined]
  ]
  for (const [name, payload] of refused) {
    const res = await post(app, shop, order.id, payload)
    t.equal(res.statusCode, 400, name)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', name)
    if (/whitespace|4001/.test(name)) t.match(res.json().error.message, 'body.text must be 1–4000 characters after trimming surrounding whitespace', `${name}: the rule in words`)
    const asBuyer = await app.inject({ method: 'POST', url: `/internal/v1/orders/${order.id}/messages`, headers: internalHeaders, payload: payload as object })
    t.equal(asBuyer.statusCode, 400, `${name} (buyer)`)
  }

  const { messages } = await read(app, shop, order.id, '?limit=100')
  t.equal(messages.length, 2 + accepted.length, 'refused posts stored nothing')
  t.same(messages.slice(0, 2).map((m) => m.senderRole), ['seller', 'buyer'])

  t.equal((await postAsBuyer(app, '00000000-0000-4000-8000-000000000000', 'hi')).statusCode, 404)
  t.equal((await post(app, shop, '00000000-0000-4000-8000-000000000000', { text: 'hi' })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/messages`, payload: { text: 'hi' } })).statusCode, 401)
})

t.test('reading: cursor, limit, nextCursor', async (t) => {
  const { app, shop, order } = await setup(t)

  t.same(await read(app, shop, order.id), { messages: [], nextCursor: null }, 'nothing yet, no cursor: null')
  const since = '2020-01-01T00:00:00.000Z'
  t.same(await read(app, shop, order.id, `?cursor=${since}`), { messages: [], nextCursor: since }, 'nothing new: the cursor comes back')
  t.same(await read(app, shop, order.id, `?cursor=${encodeURIComponent('2020-01-01T03:00:00+03:00')}`), { messages: [], nextCursor: since },
    'in the API\'s own form: UTC with milliseconds')

  const posted: Message[] = []
  for (let i = 0; i < 60; i++) {
    const res = i % 3 === 0 ? await postAsBuyer(app, order.id, `m${i}`) : await post(app, shop, order.id, { text: `m${i}` })
    posted.push(res.json().data.message)
  }
  const first = await read(app, shop, order.id)
  t.equal(first.messages.length, 50, 'default limit 50')
  t.same(first.messages, posted.slice(0, 50), 'oldest first, as posted')
  t.equal(first.nextCursor, posted[49].createdAt)
  const second = await read(app, shop, order.id, `?cursor=${first.nextCursor}`)
  t.same(second.messages, posted.slice(50), 'strictly after the cursor')
  t.equal(second.nextCursor, posted[59].createdAt)
  t.same(await read(app, shop, order.id, `?cursor=${second.nextCursor}`), { messages: [], nextCursor: second.nextCursor })

  const small = await read(app, shop, order.id, '?limit=1')
  t.same(small.messages, [posted[0]])
  t.equal((await read(app, shop, order.id, '?limit=100')).messages.length, 60)
  const mid = await read(app, shop, order.id, `?cursor=${encodeURIComponent(posted[9].createdAt)}&limit=5`)
  t.same(mid.messages, posted.slice(10, 15))

  // createdAt strictly increases within the order, even for posts within one millisecond.
  for (let i = 1; i < posted.length; i++) t.ok(posted[i].createdAt > posted[i - 1].createdAt, `message ${i} is later than ${i - 1}`)

  for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=yesterday', '?cursor=2026-13-01T00:00:00.000Z']) {
    const res = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}/messages${query}`, headers: shop.headers })
    t.equal(res.statusCode, 400, query)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
  const offset = await read(app, shop, order.id, `?cursor=${encodeURIComponent('2000-01-01T03:00:00+03:00')}&limit=2`)
  t.same(offset.messages, posted.slice(0, 2), 'a cursor with an offset is understood')
})

t.test('polling during a burst of ~200 concurrent messages: no skip, no repeat', async (t) => {
  const { app, shop, order } = await setup(t)
  const other = await buy(app, (await createProduct(app, shop, { title: 'Other' })))

  let burstDone = false
  const seen: Message[] = []
  const poller = (async () => {
    let cursor: string | null = null
    for (;;) {
      const finished = burstDone
      const page = await read(app, shop, order.id, `?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      seen.push(...page.messages)
      if (page.messages.length > 0) t.equal(page.nextCursor, page.messages.at(-1)!.createdAt)
      else t.equal(page.nextCursor, cursor)
      cursor = page.nextCursor
      // One more full pass after the burst ended, until a page comes back empty.
      if (finished && page.messages.length === 0) return
    }
  })()

  const burst = await Promise.all(Array.from({ length: 200 }, (_, i) => {
    if (i % 4 === 0) return postAsBuyer(app, order.id, `buyer ${i}`)
    if (i % 10 === 1) return post(app, shop, other.id, { text: `elsewhere ${i}` })
    return post(app, shop, order.id, { text: `seller ${i}` })
  }))
  burstDone = true
  await poller

  t.ok(burst.every((r) => r.statusCode === 201), 'every post was accepted')
  const expected = burst.map((r) => r.json().data.message as Message).filter((m) => !m.text.startsWith('elsewhere'))
  t.equal(expected.length, 180)
  const seenIds = seen.map((m) => m.id)
  t.equal(new Set(seenIds).size, seenIds.length, 'no message seen twice')
  t.same(new Set(seenIds), new Set(expected.map((m) => m.id)), 'every message of the order seen, none of the other order')
  const times = seen.map((m) => m.createdAt)
  t.ok(times.every((time, i) => i === 0 || time > times[i - 1]), 'seen in strictly increasing createdAt')
  t.equal(new Set(expected.map((m) => m.createdAt)).size, 180, 'no two messages of the order share a createdAt')
})

t.test('a post whose clock reads no later than the last message is stamped 1 ms after it', async (t) => {
  // Posts to one order are serialized by its row lock and take a few ms each, so
  // even 100 concurrent posts never read the same millisecond here (measured).
  // Moving the last message ahead of the clock stands in for that (or for a clock
  // stepped back): without max(createdAt) + 1 ms the next post would sort before it
  // and a poller holding its createdAt as cursor would never see the new message.
  const { app, shop, order } = await setup(t)
  const first = (await post(app, shop, order.id, { text: 'first' })).json().data.message as Message
  const sql = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  // The order row keeps its newest message's time (orders.last_message_at): both move.
  await sql`update order_messages set created_at = created_at + interval '1 second' where id = ${first.id}`
  await sql`update orders set last_message_at = last_message_at + interval '1 second' where id = ${order.id}`
  const { nextCursor } = await read(app, shop, order.id)
  t.equal(nextCursor, new Date(Date.parse(first.createdAt) + 1000).toISOString())

  const second = await post(app, shop, order.id, { text: 'second' })
  t.equal(second.statusCode, 201, second.body)
  t.equal(second.json().data.message.createdAt, new Date(Date.parse(nextCursor!) + 1).toISOString(), 'the last createdAt + 1 ms')
  const polled = await read(app, shop, order.id, `?cursor=${encodeURIComponent(nextCursor!)}`)
  t.same(polled.messages.map((m) => m.text), ['second'], 'the poller holding the last cursor sees it')
})
