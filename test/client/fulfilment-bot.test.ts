// The reference bot (examples/fulfilment-bot.ts) as a user runs it: a child
// process against a listening service, killed without warning mid-way and
// started again. Every paid order must end `awaiting_confirmation` with its own
// code from the file and exactly one thank-you message: nothing lost, nothing
// done twice.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'

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
  const app = await build(t)
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const dir = mkdtempSync(join(tmpdir(), 'fulfilment-bot-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'codes.txt'), codes.join('\n') + '\n')
  const env = { SELLER_API_URL: baseUrl, SELLER_API_KEY: shop.apiKey, BOT_CODES_FILE: join(dir, 'codes.txt'), BOT_STATE_FILE: join(dir, 'state.json') }

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
    const thanks = chat.filter((m: { senderRole: string, text: string }) => m.senderRole === 'seller')
    t.equal(thanks.length, 1, `order ${order.id}: one answer in the chat`)
    t.equal(thanks[0]?.text, `Thank you for your order! Your code: ${order.deliveredValue}`)
  }
  const state = JSON.parse(readFileSync(env.BOT_STATE_FILE, 'utf8'))
  t.match(state.cursor, /^v1_/, 'the cursor is stored')
  t.same(Object.keys(state.codes).sort(), [...ids].sort(), 'the state knows which code went where')
})
