// The order and claim events' rules (docs/chat-rules.md, "When rules fire"): each
// enabled matching rule posts once per order and event, in the change's own
// transaction, after its events, by priority; nowhere else.
import t from 'tap'
import postgres from 'postgres'
import { build, createShop, fileDatabaseUrl } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { act, buy, confirm, orderIn } from '../fixtures/orders.js'
import { claimAction, openedClaim } from '../fixtures/claims.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { readAll } from '../fixtures/events.js'
import { chat, createRule, ruleCall, ruleMessages } from '../fixtures/chat-rules.js'

t.test('a stock purchase: order.paid then order.delivered rules, after the change\'s events, by priority', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop)
  await addValues(app, shop, product.id, ['KEY-1'])
  const delivered = await createRule(app, shop, { name: 'Delivered', text: 'Delivered {{orderId}}, {{amount}} RUB' })
  const second = await createRule(app, shop, { name: 'Paid 2', trigger: 'order.paid', text: 'second', priority: 20 })
  const first = await createRule(app, shop, { name: 'Paid 1', trigger: 'order.paid', text: 'first', priority: 10 })
  const order = await buy(app, product)
  t.equal(order.status, 'awaiting_confirmation')
  const messages = await ruleMessages(app, shop, order.id)
  t.same(messages.map((m) => [m.text, m.ruleId, m.senderRole]), [
    ['first', first.id, 'seller'], ['second', second.id, 'seller'],
    [`Delivered ${order.id}, 499.90 RUB`, delivered.id, 'seller']
  ])
  const { events } = await readAll(app, shop)
  t.same(events.map((e) => e.type),
    ['order.paid', 'order.delivered', 'stock.empty', 'message.created', 'message.created', 'message.created'])
  t.same(events.slice(3).map((e) => e.data.message), messages, 'each rule message has its message.created')
  const rule = (await ruleCall(app, shop, 'GET', `/${delivered.id}`)).json().data.rule
  t.equal(rule.firedCount, 1)
  t.equal(rule.lastFiredAt, messages[2].createdAt)
  t.notOk(JSON.stringify(messages).includes('KEY-1'), 'never a delivered value')
})

t.test('one upload filling three waiting orders: each order gets exactly its own rule message', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop)
  const rule = await createRule(app, shop, { name: 'Delivered', text: 'Delivered {{orderId}} ({{quantity}})' })
  const waiting = [await buy(app, product), await buy(app, product), await buy(app, product)]
  t.same(waiting.map((o) => o.status), ['paid', 'paid', 'paid'], 'no stock: all three wait')
  for (const order of waiting) t.same(await ruleMessages(app, shop, order.id), [], 'nothing delivered, nothing posted')
  const added = await addValues(app, shop, product.id, ['KEY-1', 'KEY-2', 'KEY-3'])
  t.equal(added.filledOrders, 3, 'one upload, one transaction, three orders delivered')
  for (const order of waiting) {
    t.same((await ruleMessages(app, shop, order.id)).map((m) => [m.text, m.ruleId]), [[`Delivered ${order.id} (1)`, rule.id]],
      `order ${order.id.slice(0, 8)}: its own message, once`)
  }
  const { events } = await readAll(app, shop)
  const posted = events.filter((e) => e.type === 'message.created').map((e) => e.data.message.text)
  t.same(posted.sort(), waiting.map((o) => `Delivered ${o.id} (1)`).sort(), 'one message.created per order')
  t.equal((await ruleCall(app, shop, 'GET', `/${rule.id}`)).json().data.rule.firedCount, 3)
})

t.test('every order step fires its rules once; nothing fires where it should not', async (t) => {
  const app = await build(t)
  const [shop, other] = [await createShop(app, 'Mine'), await createShop(app, 'Other')]
  const product = await createProduct(app, shop)
  const elsewhere = await createProduct(app, shop, { title: 'Other product' })
  const hidden = await createProduct(app, shop, { external: false })
  const before = await orderIn(app, shop, product, 'processing')
  const rules = Object.fromEntries(await Promise.all(
    ['order.paid', 'order.delivered', 'order.completed', 'order.cancelled'].map(async (trigger) =>
      [trigger, await createRule(app, shop, { name: trigger, trigger, text: `${trigger} {{productTitle}}` })])))
  await createRule(app, shop, { name: 'Disabled', trigger: 'order.paid', text: 'disabled', enabled: false })
  await createRule(app, shop, { name: 'Only elsewhere', trigger: 'order.paid', text: 'elsewhere', productIds: [elsewhere.id] })
  await createRule(app, other, { name: 'Other shop', trigger: 'order.paid', text: 'other shop' })

  const done = await orderIn(app, shop, product, 'completed')
  t.same((await ruleMessages(app, shop, done.id)).map((m) => m.text),
    ['order.paid Steam key: Hades II', 'order.delivered Steam key: Hades II', 'order.completed Steam key: Hades II'])
  const cancelled = await orderIn(app, shop, product, 'cancelled')
  t.same((await ruleMessages(app, shop, cancelled.id)).map((m) => m.text),
    ['order.paid Steam key: Hades II', 'order.cancelled Steam key: Hades II'])
  const filtered = await buy(app, elsewhere)
  t.same((await ruleMessages(app, shop, filtered.id)).map((m) => m.text), ['order.paid Other product', 'elsewhere'])

  // Paid before the rules existed: only what changes after them fires.
  t.equal((await act(app, shop, before.id, 'deliver')).statusCode, 200)
  t.same((await ruleMessages(app, shop, before.id)).map((m) => m.text), ['order.delivered Steam key: Hades II'])

  const invisible = await buy(app, hidden)
  const res = await app.inject({ method: 'GET', url: `/internal/v1/orders/${invisible.id}`, headers: {} })
  t.not(res.statusCode, 500)
  const postgresUrl = await fileDatabaseUrl()
  const sql = postgres(postgresUrl, { max: 1 })
  t.teardown(() => sql.end())
  const [{ count }] = await sql`select count(*)::int from order_messages where order_id = ${invisible.id}`
  t.equal(count, 0, 'an order of a product without automation gets no rule message')
  t.equal((await ruleCall(app, shop, 'GET', `/${rules['order.paid'].id}`)).json().data.rule.firedCount, 3)
  const [{ others }] = await sql`select count(*)::int as others from order_messages m join orders o on o.id = m.order_id
    where o.shop_id = ${other.shopId}`
  t.equal(others, 0, 'another shop\'s rule never fires here')
})

t.test('claims: claim.opened and claim.resolved with the claim\'s placeholders, each occurrence once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  await createRule(app, shop, { name: 'Opened', trigger: 'claim.opened', text: 'Sorry ({{claimReason}}), by {{claimRespondBy}}' })
  await createRule(app, shop, { name: 'Resolved', trigger: 'claim.resolved', text: 'Settled' })
  await createRule(app, shop, { name: 'Cancelled', trigger: 'order.cancelled', text: 'Refunded {{amount}}' })
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  const claim = await openedClaim(app, order.id)
  t.equal((await claimAction(app, shop, claim.id, 'reject', { note: 'Works for us' })).statusCode, 200)
  const second = await openedClaim(app, order.id, { reason: 'already_used', text: 'Used' })
  t.equal((await claimAction(app, shop, second.id, 'refund')).statusCode, 200)
  const messages = await chat(app, shop, order.id)
  t.same(messages.filter((m) => m.ruleId !== null).map((m) => m.text), [
    `Sorry (not_working), by ${claim.respondBy}`, 'Settled',
    `Sorry (already_used), by ${second.respondBy}`, 'Refunded 499.90', 'Settled'
  ])
  const lastSystem = messages.map((m) => m.senderRole).lastIndexOf('system')
  t.ok(messages.slice(lastSystem + 1).every((m) => m.ruleId !== null), 'after the change\'s system messages')
  const { events } = await readAll(app, shop)
  const tail = events.slice(-5).map((e) => e.type === 'message.created' ? e.data.message.senderRole : e.type)
  t.same(tail, ['order.cancelled', 'claim.resolved', 'system', 'seller', 'seller'])
  t.same(events.slice(-2).map((e) => e.data.message.text), ['Refunded 499.90', 'Settled'],
    'the refund\'s events and system message, then each event\'s rules in the events\' order')
})

t.test('at most 20 rule messages an order; an empty text posts nothing', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  await createRule(app, shop, { name: 'Empty', trigger: 'order.paid', text: '{{field:Nothing}}', priority: 0 })
  for (let i = 0; i < 15; i++) await createRule(app, shop, { name: `Paid ${i}`, trigger: 'order.paid', text: `paid ${i}` })
  for (let i = 0; i < 15; i++) await createRule(app, shop, { name: `Taken ${i}`, trigger: 'order.delivered', text: `delivered ${i}` })
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  const messages = await ruleMessages(app, shop, order.id)
  t.equal(messages.length, 20)
  t.equal(messages.filter((m) => m.text.startsWith('paid')).length, 15)
  t.equal(messages.filter((m) => m.text.startsWith('delivered')).length, 5)
  t.equal((await confirm(app, order.id)).statusCode, 200)
  t.equal((await ruleMessages(app, shop, order.id)).length, 20)
})

t.test('a change that rolls back posts nothing', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  await createRule(app, shop, { name: 'Completed', trigger: 'order.completed', text: 'Thanks' })
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  const sql = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  // The confirm's statement in a transaction that then fails: its event's rules go with it.
  await t.rejects(sql.begin(async (tx) => {
    await tx`with o as (update orders set status = 'completed' where id = ${order.id} returning *),
      s as (update shops set event_seq = event_seq + 1 where id = ${shop.shopId} returning event_seq)
      insert into events (shop_id, seq, type, data)
      select ${shop.shopId}, s.event_seq, 'order.completed', jsonb_build_object('order', jsonb_build_object('id', o.id, 'productId', o.product_id)) from o, s`
    await tx`select 1 / 0`
  }))
  t.same(await ruleMessages(app, shop, order.id), [])
  t.equal((await confirm(app, order.id)).statusCode, 200)
  t.same((await ruleMessages(app, shop, order.id)).map((m) => m.text), ['Thanks'], 'the committed change does post')
})
