// The order.unconfirmed reminders (docs/chat-rules.md, "The reminder scheduler"):
// once per rule and order, only while the order is unconfirmed without a claim at
// the due time, by whichever instance gets there first, also when one is killed.
import t from 'tap'
import postgres from 'postgres'
import { setTimeout as pause } from 'node:timers/promises'
import { build, createShop, fileDatabaseUrl, type App, type ShopFixture } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { buy, confirm, orderIn } from '../fixtures/orders.js'
import { claimAction, openedClaim } from '../fixtures/claims.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { fileServerEnv, startServerProcess } from '../fixtures/server-process.js'
import { createRule, ruleCall, ruleMessages } from '../fixtures/chat-rules.js'
import { until } from '../fixtures/until.js'

async function database (t: { teardown: (fn: () => unknown) => void }) {
  const sql = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  return sql
}

/** Waits until no reminder is waiting any more (the sweeps took them all), within `ms`. */
const untilNoneWaiting = (sql: postgres.Sql, ms: number) => until(async () =>
  (await sql<Array<{ waiting: number }>>`select count(*)::int as waiting from chat_rule_reminders`)[0].waiting === 0, ms, 50)

const remindersIn = async (app: App, shop: ShopFixture, orderId: string) =>
  (await ruleMessages(app, shop, orderId)).map((m) => m.text)

t.test('reminded once, only while unconfirmed without a claim, only orders delivered under the rule', async (t) => {
  const app = await build(t, { CHAT_RULE_SWEEP_INTERVAL_MS: 50 })
  const sql = await database(t)
  const [shop, other] = [await createShop(app, 'Mine'), await createShop(app, 'Other')]
  const product = await createProduct(app, shop)
  const elsewhere = await createProduct(app, shop, { title: 'Elsewhere' })
  const before = await orderIn(app, shop, product, 'awaiting_confirmation')
  const rule = await createRule(app, shop, {
    name: 'Confirm?',
    trigger: 'order.unconfirmed',
    afterMinutes: 60,
    productIds: [product.id],
    text: 'Did {{productTitle}} work? Please confirm order {{orderId}}.'
  })
  await createRule(app, other, { name: 'Theirs', trigger: 'order.unconfirmed', afterMinutes: 10 })
  const waiting = await orderIn(app, shop, product, 'awaiting_confirmation')
  const confirmed = await orderIn(app, shop, product, 'awaiting_confirmation')
  const claimed = await orderIn(app, shop, product, 'awaiting_confirmation')
  const rejected = await orderIn(app, shop, product, 'awaiting_confirmation')
  const filtered = await orderIn(app, shop, elsewhere, 'awaiting_confirmation')
  await openedClaim(app, claimed.id)
  const claim = await openedClaim(app, rejected.id)
  t.equal((await claimAction(app, shop, claim.id, 'reject', { note: 'Works' })).statusCode, 200)
  t.equal((await confirm(app, confirmed.id)).statusCode, 200)
  const [{ scheduled }] = await sql`select count(*)::int as scheduled from chat_rule_reminders`
  t.equal(scheduled, 4, 'a reminder waits for each order of its product delivered under the rule')
  t.same(await remindersIn(app, shop, waiting.id), [], 'nothing before the due time')
  // 60 minutes pass.
  await sql`update chat_rule_reminders set due_at = now()`
  t.ok(await untilNoneWaiting(sql, 20_000), 'every due reminder was taken')
  t.same(await remindersIn(app, shop, waiting.id), [`Did Steam key: Hades II work? Please confirm order ${waiting.id}.`])
  t.same(await remindersIn(app, shop, rejected.id), [waitingText(rejected.id)], 'a claim rejected before the due time')
  for (const order of [before, confirmed, claimed, filtered]) t.same(await remindersIn(app, shop, order.id), [], 'not this one')
  t.equal((await ruleCall(app, shop, 'GET', `/${rule.id}`)).json().data.rule.firedCount, 2)
  await pause(300)
  t.same(await remindersIn(app, shop, waiting.id), [waitingText(waiting.id)], 'once')
})

const waitingText = (orderId: string) => `Did Steam key: Hades II work? Please confirm order ${orderId}.`

t.test('a disabled rule reminds nothing; a new afterMinutes moves the due times', async (t) => {
  const app = await build(t, { CHAT_RULE_SWEEP_INTERVAL_MS: 50 })
  const sql = await database(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const body = { name: 'Confirm?', trigger: 'order.unconfirmed', afterMinutes: 30, text: 'Please confirm' }
  const rule = await createRule(app, shop, body)
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  await ruleCall(app, shop, 'PUT', `/${rule.id}`, { ...body, afterMinutes: 120 })
  const [{ minutes }] = await sql`select extract(epoch from due_at - delivered_at)::int / 60 as minutes from chat_rule_reminders`
  t.equal(minutes, 120)
  await ruleCall(app, shop, 'PUT', `/${rule.id}`, { ...body, enabled: false })
  await sql`update chat_rule_reminders set due_at = now()`
  t.ok(await untilNoneWaiting(sql, 20_000))
  t.same(await remindersIn(app, shop, order.id), [])
})

t.test('two instances, one killed mid-run: every reminder posted exactly once', async (t) => {
  const key = stockKey()
  const a = await build(t, { VALUES_ENCRYPTION_KEY: key, RATE_LIMIT_MAX: 100_000, CHAT_RULE_SWEEP_INTERVAL_MS: 30_000 })
  const sql = await database(t)
  const shop = await createShop(a)
  const product = await stockProduct(a, shop)
  await createRule(a, shop, { name: 'Confirm?', trigger: 'order.unconfirmed', afterMinutes: 10, text: 'Confirm {{orderId}}' })
  const count = 400
  await addValues(a, shop, product.id, Array.from({ length: count }, (_, i) => `CODE-${i}`))
  for (let i = 0; i < count; i++) await buy(a, product)
  await a.close()
  await sql`update chat_rule_reminders set due_at = now()`
  const child = await startServerProcess(t, await fileServerEnv({ CHAT_RULE_SWEEP_INTERVAL_MS: '20' }))
  await child.printed(/chat rule reminders due were taken/)
  child.child.kill('SIGKILL')
  await child.exited
  const b = await build(t, { CHAT_RULE_SWEEP_INTERVAL_MS: 50 })
  t.ok(await untilNoneWaiting(sql, 60_000), 'the other instance took the rest')
  const perOrder = await sql`select o.id, count(m.id)::int as reminders from orders o
    left join order_messages m on m.order_id = o.id and m.rule_id is not null
    where o.shop_id = ${shop.shopId} group by o.id`
  t.equal(perOrder.length, count)
  t.same(perOrder.filter((row) => row.reminders !== 1), [], 'each order reminded exactly once')
  const feed = await sql`select count(*)::int as created from events where shop_id = ${shop.shopId} and type = 'message.created'`
  t.equal(feed[0].created, count, 'each with its one message.created')
  t.ok(b)
})
