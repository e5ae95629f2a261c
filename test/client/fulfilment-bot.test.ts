// The reference bot (examples/fulfilment-bot.ts) as a user runs it: a child
// process against a listening service, killed without warning mid-way and
// started again. Every paid order must end `awaiting_confirmation` with its own
// code from the file and exactly one thank-you message (the shop's chat rule's:
// the bot leaves it to the rule): nothing lost, nothing done twice.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { act, buy, postAsBuyer } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { openClaim } from '../fixtures/claims.js'
import { createRule } from '../fixtures/chat-rules.js'

const codes = Array.from({ length: 8 }, (_, i) => `CODE-${i + 1}-${Math.random().toString(36).slice(2, 8)}`)

function startBot (env: Record<string, string>): { child: ChildProcess, output: () => string, exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/fulfilment-bot.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => { output += chunk })
  child.stderr!.on('data', (chunk) => { output += chunk })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

async function orderOf (app: App, shop: ShopFixture, id: string) {
  return (await app.inject({ method: 'GET', url: `/v1/orders/${id}`, headers: shop.headers })).json().data.order
}

/** Waits (bounded) until every order in `ids` is delivered. */
async function allDelivered (app: App, shop: ShopFixture, ids: string[], seconds = 60) {
  for (let i = 0; i < seconds * 10; i++) {
    const orders = await Promise.all(ids.map((id) => orderOf(app, shop, id)))
    if (orders.every((o) => o.status === 'awaiting_confirmation')) return orders
    await sleep(100)
  }
  throw new Error('the bot did not deliver every order in time')
}

t.test('the bot delivers every paid order once, across a kill -9 and a clean stop', async (t) => {
  const { app, shop, product, env } = await setUp(t)

  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await buy(app, product)).id)
  let bot = startBot(env)
  t.teardown(() => { bot.child.kill('SIGKILL') })
  // Killed without warning as soon as it has delivered one order: the rest of its page is replayed.
  for (let i = 0; i < 600 && !/delivered/.test(bot.output()); i++) await sleep(100)
  bot.child.kill('SIGKILL')
  await bot.exited
  for (let i = 0; i < 2; i++) ids.push((await buy(app, product)).id)

  bot = startBot(env)
  const orders = await allDelivered(app, shop, ids)
  bot.child.kill('SIGINT')
  t.equal(await bot.exited, 0, 'SIGINT stops the bot cleanly')
  t.match(bot.output(), /stopped/)

  // A restart after the clean stop does nothing more.
  ids.push((await buy(app, product)).id)
  bot = startBot(env)
  const [, , , , , last] = await allDelivered(app, shop, ids)
  bot.child.kill('SIGTERM')
  t.equal(await bot.exited, 0, 'SIGTERM stops the bot cleanly')
  orders.push(last)

  const delivered = orders.map((o) => o.deliveredValue)
  t.equal(new Set(delivered).size, ids.length, 'every order got its own code')
  t.ok(delivered.every((code) => codes.includes(code)), 'every code comes from the file')
  for (const order of orders) {
    const chat = (await app.inject({ method: 'GET', url: `/v1/orders/${order.id}/messages`, headers: shop.headers })).json().data.messages
    const thanks = chat.filter((m: { senderRole: string }) => m.senderRole === 'seller')
    t.equal(thanks.length, 1, `order ${order.id}: one message in the chat`)
    t.equal(thanks[0]?.text, `Thank you for your order ${order.id}!`, 'the chat rule\'s thank-you, never a code')
    t.not(thanks[0]?.ruleId, null)
  }
  const state = JSON.parse(readFileSync(env.BOT_STATE_FILE, 'utf8'))
  t.match(state.cursor, /^v1_/, 'the cursor is stored')
  t.same(Object.keys(state.orders).sort(), [...ids].sort(), 'the journal knows every order')
  t.same(orders.map((o) => state.orders[o.id].code), delivered, 'and which code went where')
})

async function sellerMessages (app: App, shop: ShopFixture, orderId: string) {
  const chat = (await app.inject({ method: 'GET', url: `/v1/orders/${orderId}/messages`, headers: shop.headers })).json().data.messages
  // The bot's own messages: the shop's chat rule posts as the seller too, with its ruleId.
  return chat.filter((m: { senderRole: string, ruleId: string | null }) => m.senderRole === 'seller' && m.ruleId === null) as Array<{ text: string }>
}

async function setUp (t: Test) {
  const app = await build(t)
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  await createRule(app, shop, { name: 'Thanks', trigger: 'order.delivered', text: 'Thank you for your order {{orderId}}!' })
  const dir = mkdtempSync(join(tmpdir(), 'fulfilment-bot-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'codes.txt'), '# codes of the test\n\n' + codes.join('\n') + '\n')
  const env = { SELLER_API_URL: baseUrl, SELLER_API_KEY: shop.apiKey, BOT_CODES_FILE: join(dir, 'codes.txt'), BOT_STATE_FILE: join(dir, 'state.json') }
  return { app, shop, product, dir, env }
}

t.test('orders taken, delivered or cancelled by someone else are left alone: no code, no message', async (t) => {
  const { app, shop, product, env } = await setUp(t)
  // The README's curl session before the bot starts: one order delivered by hand, one taken, one cancelled.
  const byHand = await buy(app, product)
  t.equal((await act(app, shop, byHand.id, 'take', undefined, { 'idempotency-key': `take-${byHand.id}` })).statusCode, 200)
  t.equal((await act(app, shop, byHand.id, 'deliver', { value: 'XXXX-YYYY-ZZZZ' }, { 'idempotency-key': `deliver-${byHand.id}` })).statusCode, 200)
  const taken = await buy(app, product)
  t.equal((await act(app, shop, taken.id, 'take')).statusCode, 200)
  const cancelled = await buy(app, product)
  t.equal((await act(app, shop, cancelled.id, 'cancel', { reason: 'out of stock' })).statusCode, 200)
  // The bot's own crash between its take and its delivery, as its journal left it.
  const halfDone = await buy(app, product)
  t.equal((await act(app, shop, halfDone.id, 'take', undefined, { 'idempotency-key': `take:${halfDone.id}` })).statusCode, 200)
  // …and a journal that says `taking` for an order someone else took meanwhile.
  const lost = await buy(app, product)
  t.equal((await act(app, shop, lost.id, 'take')).statusCode, 200)
  writeFileSync(env.BOT_STATE_FILE, JSON.stringify({ orders: { [halfDone.id]: { step: 'taking' }, [lost.id]: { step: 'taking' } } }))
  const mine = await buy(app, product)

  const bot = startBot(env)
  t.teardown(() => { bot.child.kill('SIGKILL') })
  // Events are handled in commit order: once the last order is delivered, every earlier one was seen.
  const [resumed, last] = await allDelivered(app, shop, [halfDone.id, mine.id])
  bot.child.kill('SIGTERM')
  t.equal(await bot.exited, 0)

  t.equal(resumed.deliveredValue, codes[0], 'the order it took before its crash is delivered with the first code')
  t.equal(last.deliveredValue, codes[1], 'no code went to an order it did not take')
  t.equal((await orderOf(app, shop, byHand.id)).deliveredValue, 'XXXX-YYYY-ZZZZ', 'the order delivered by hand keeps its code')
  t.equal((await orderOf(app, shop, taken.id)).status, 'processing', 'the order taken by someone else is not delivered')
  t.equal((await orderOf(app, shop, lost.id)).status, 'processing', 'nor the one taken elsewhere while the bot was down')
  for (const order of [byHand, taken, cancelled, lost]) {
    t.same(await sellerMessages(app, shop, order.id), [], `order ${order.id}: the bot wrote nothing`)
  }
  t.notMatch(bot.output(), new RegExp(`order (${byHand.id}|${taken.id}|${cancelled.id}|${lost.id}) delivered`), 'and claims none of them')
  const state = JSON.parse(readFileSync(env.BOT_STATE_FILE, 'utf8'))
  t.equal(state.orders[byHand.id].step, 'elsewhere')
  t.equal(state.orders[lost.id].step, 'elsewhere')
})

t.test('an order delivered by someone else after the bot took it: no message from the bot, its code kept for the next order', async (t) => {
  const { app, shop, product, env } = await setUp(t)
  const order = await buy(app, product)
  // The bot took it (its journal says so) and crashed; meanwhile a person delivered another code.
  t.equal((await act(app, shop, order.id, 'take', undefined, { 'idempotency-key': `take:${order.id}` })).statusCode, 200)
  t.equal((await act(app, shop, order.id, 'deliver', { value: 'XXXX-YYYY-ZZZZ' })).statusCode, 200)
  writeFileSync(env.BOT_STATE_FILE, JSON.stringify({ orders: { [order.id]: { step: 'taken', code: codes[0] } } }))
  const next = await buy(app, product)
  const bot = startBot(env)
  t.teardown(() => { bot.child.kill('SIGKILL') })
  const [, delivered] = await allDelivered(app, shop, [order.id, next.id])
  bot.child.kill('SIGTERM')
  await bot.exited
  t.same(await sellerMessages(app, shop, order.id), [], 'no message with a code the buyer did not get')
  t.equal(delivered.deliveredValue, codes[0], 'the unused code goes to the next order')
})

t.test('the bot answers buyers only, never its own messages', async (t) => {
  const { app, shop, product, env } = await setUp(t)
  const first = await buy(app, product)
  const bot = startBot(env)
  t.teardown(() => { bot.child.kill('SIGKILL') })
  await allDelivered(app, shop, [first.id])
  const post = (text: string) => postAsBuyer(app, first.id, text)
  t.equal((await post('The code does not work')).statusCode, 201)
  for (let i = 0; i < 600 && (await sellerMessages(app, shop, first.id)).length < 1; i++) await sleep(100)
  // An order after the bot's answer: once it is delivered, the bot has seen its own answer in the feed too.
  const second = await buy(app, product)
  await allDelivered(app, shop, [second.id])
  bot.child.kill('SIGTERM')
  t.equal(await bot.exited, 0)
  const answers = await sellerMessages(app, shop, first.id)
  t.equal(answers.length, 1, 'one answer to the buyer: its own messages are not answered')
  t.match(answers[0].text, `Your code for this order: ${codes[0]}`)
})

t.test('a missing codes file or API key: one line on stderr, exit 1', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fulfilment-bot-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const missing = startBot({ SELLER_API_URL: 'http://127.0.0.1:9', SELLER_API_KEY: 'service_sk_x', BOT_CODES_FILE: join(dir, 'codes.txt'), BOT_STATE_FILE: join(dir, 'state.json') })
  t.equal(await missing.exited, 1)
  t.equal(missing.output(), `fulfilment-bot: cannot read the codes file ${join(dir, 'codes.txt')} (no such file): create it with one code per line (BOT_CODES_FILE names another file)\n`)
  const noKey = startBot({ SELLER_API_KEY: '', BOT_CODES_FILE: join(dir, 'codes.txt') })
  t.equal(await noKey.exited, 1)
  t.equal(noKey.output().trim().split('\n').length, 1)
  t.match(noKey.output(), /SELLER_API_KEY is not set/)
})

t.test('a claim on an order the bot delivered gets a new code from the file', async (t) => {
  const { app, shop, product, env } = await setUp(t)
  const mine = await buy(app, product)
  let bot = startBot(env)
  t.teardown(() => { bot.child.kill('SIGKILL') })
  const [delivered] = await allDelivered(app, shop, [mine.id])
  bot.child.kill('SIGINT')
  await bot.exited
  const res = await openClaim(app, delivered.id)
  t.equal(res.statusCode, 201, res.body)
  bot = startBot(env)
  let order = delivered
  for (let i = 0; i < 300 && order.deliveredValue === delivered.deliveredValue; i++) {
    await sleep(100)
    order = await orderOf(app, shop, delivered.id)
  }
  t.not(order.deliveredValue, delivered.deliveredValue, 'replaced')
  t.ok(codes.includes(order.deliveredValue), 'by a code of the file')
  const claim = (await app.inject({ method: 'GET', url: `/v1/claims/${res.json().data.claim.id}`, headers: shop.headers })).json().data.claim
  t.match(claim, { status: 'replaced', resolution: { by: 'seller' } })
  bot.child.kill('SIGINT')
  await bot.exited
  const state = JSON.parse(readFileSync(env.BOT_STATE_FILE, 'utf8'))
  t.same(state.badCodes, [delivered.deliveredValue], 'the reported code is never handed out again')
})
