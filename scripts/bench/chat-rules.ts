// The chat rules scenario of `npm run bench` (docs/chat-rules.md, docs/performance.md,
// "Chat rules"), over HTTP against the stock service, each ratio within one run:
//  - a stock purchase in shops with 5 enabled rules on `order.paid` and
//    `order.delivered` of their product (each purchase posts 5 messages) against
//    the same purchase in shops with none: target ≥ 0.8× the purchases a second;
//    and, reported beside it, the floor: shops whose purchases write the same rows
//    (5 messages, 5 events) from a bench-only trigger that does nothing else
//    (chat-rules-floor.sql), against the same shops without rules;
//  - a buyer's message (POST /internal/v1/orders/{id}/messages) in a shop with 100
//    rules (50 keyword rules of 20 keywords each) against a shop with none: p99
//    against p99, target ≤ 1.5×;
//  - 5 000 orders due for the `order.unconfirmed` reminder at once, swept by two
//    instances (their default CHAT_RULE_SWEEP_INTERVAL_MS): every one reminded,
//    each once, target within 60 s.
import { readFileSync } from 'node:fs'
import postgres from 'postgres'
import type { Measure, Workload } from './load.js'
import { log, sleep, stopServer, type Server } from './processes.js'
import { seedStock, type StockProduct } from './seed-stock.js'
import { parseTemplate } from '../../domain/chat-rule-template.js'
import type { ChatRuleTrigger } from '../../domain/chat-rules.js'

/** Shops (one stock product each) per side of the purchase comparison. */
export const RULE_SHOPS = 32
const ITEMS_PER_SHOP = 4000
/** Orders per side the buyers' messages spread over. */
const CHAT_ORDERS = 4000
export const DUE_REMINDERS = 5000
const BUYER_TEXTS = ['Здравствуйте! Ключ не работает, что делать?', 'When will my code arrive?', '!help', 'Спасибо, всё работает']

export interface ChatRulesFixtures {
  purchase: { withRules: StockProduct[], without: StockProduct[], floor: StockProduct[] }
  messages: { withRules: string[], without: string[] }
  reminders: { shopId: string, ruleId: string, orderIds: string[] }
}
export interface ChatRulesResult {
  purchase: { baseline: Measure, service: Measure }
  /** The floor's purchases (service) against the shops without rules (baseline). */
  floor: { baseline: Measure, service: Measure }
  message: { baseline: Measure, service: Measure }
  reminders: { seconds: number, reminded: number, once: boolean }
}

type Sql = postgres.Sql

async function insertRule (sql: Sql, shopId: string, trigger: ChatRuleTrigger, text: string,
  extra: { productIds?: string[], keywords?: string[], afterMinutes?: number } = {}): Promise<string> {
  const parsed = parseTemplate(text, trigger)
  if (!parsed.ok) throw new Error(parsed.problem)
  const [{ id }] = await sql<{ id: string }[]>`insert into chat_rules (shop_id, name, enabled, trigger, priority, product_ids,
      keywords, cooldown_seconds, after_minutes, call_seller, text, template, enabled_at)
    values (${shopId}, ${`${trigger} rule`}, true, ${trigger}, 100, ${extra.productIds ?? []}::uuid[], ${extra.keywords ?? []}::text[],
      0, ${extra.afterMinutes ?? null}, false, ${text}, ${sql.json(parsed.segments)}, now() - interval '2 days')
    returning id`
  return id
}

/** `count` orders of a new external product of shop `shopId`, in `status`, delivered a day ago. */
async function insertOrders (sql: Sql, shopId: string, count: number, status: string): Promise<string[]> {
  const [{ id: categoryId }] = await sql<{ id: string }[]>`select id from categories order by path_en limit 1`
  const [{ id: productId }] = await sql<{ id: string }[]>`insert into products (shop_id, category_id, title, description, active,
      external, price, employee_reward_type, employee_reward_value)
    values (${shopId}, ${categoryId}, 'Chat product', '', true, true, 10, 'percent', 0) returning id`
  const rows = await sql<{ id: string }[]>`insert into orders (shop_id, product_id, product_title, quantity, amount, field_values,
      status, delivered_at)
    select ${shopId}, ${productId}, 'Chat product', 1, 10, '[]'::jsonb, ${status}, now() - interval '1 day'
    from generate_series(1, ${count}) returning id`
  return rows.map((row) => row.id)
}

/** Seeds the chat rules scenario into the stock database (migrated). */
export async function seedChatRulesBench (url: string, stockKey: Buffer): Promise<ChatRulesFixtures> {
  const spread = (side: string) => Array.from({ length: RULE_SHOPS }, (_, i) => ({ shop: `rules ${side} ${i}`, items: ITEMS_PER_SHOP }))
  const products = await seedStock(url, stockKey, [...spread('with'), ...spread('without'), ...spread('floor')])
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const withRules = products.slice(0, RULE_SHOPS)
    const floor = products.slice(2 * RULE_SHOPS)
    await sql.unsafe(readFileSync(new URL('./chat-rules-floor.sql', import.meta.url), 'utf8'))
    await sql`insert into bench_floor_shops select unnest(${floor.map((p) => p.shopId)}::uuid[])`
    for (const product of withRules) {
      for (const [trigger, text] of [['order.paid', 'Paid: order {{orderId}}, {{amount}} RUB'], ['order.paid', 'We got your payment for {{productTitle}}'],
        ['order.paid', 'Thank you!'], ['order.delivered', 'Delivered {{orderId}} ({{quantity}})'], ['order.delivered', 'Please confirm when it works']] as const) {
        await insertRule(sql, product.shopId, trigger, text, { productIds: [product.productId] })
      }
    }
    const shop = async (name: string) => (await sql<{ id: string }[]>`insert into shops (name) values (${name}) returning id`)[0].id
    const [chatty, quiet] = [await shop('rules chat with'), await shop('rules chat without')]
    await insertRule(sql, chatty, 'message.first', 'Hello! Order {{orderId}}')
    for (let i = 0; i < 49; i++) await insertRule(sql, chatty, 'order.completed', `Thanks ${i}`)
    for (let i = 0; i < 50; i++) {
      const keywords = Array.from({ length: 20 }, (_, j) => i === 0 && j === 0 ? '!help' : i === 1 && j === 0 ? 'ключ' : `слово${i}x${j}`)
      await insertRule(sql, chatty, 'message.keyword', `Answer ${i} for {{orderId}}`, { keywords })
    }
    const messages = {
      withRules: await insertOrders(sql, chatty, CHAT_ORDERS, 'awaiting_confirmation'),
      without: await insertOrders(sql, quiet, CHAT_ORDERS, 'awaiting_confirmation')
    }
    const remindShop = await shop('rules reminders')
    const ruleId = await insertRule(sql, remindShop, 'order.unconfirmed', 'Please confirm order {{orderId}}', { afterMinutes: 60 })
    const orderIds = await insertOrders(sql, remindShop, DUE_REMINDERS, 'awaiting_confirmation')
    await sql`vacuum analyze`
    return { purchase: { withRules, without: products.slice(RULE_SHOPS, 2 * RULE_SHOPS), floor }, messages, reminders: { shopId: remindShop, ruleId, orderIds } }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

function purchases (products: StockProduct[], token: string): Workload {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  return {
    name: 'stock purchase, rules',
    next: () => ({
      method: 'POST',
      path: '/internal/v1/orders',
      headers,
      body: JSON.stringify({ productId: products[Math.floor(Math.random() * products.length)].productId, quantity: 1, fieldValues: [] })
    })
  }
}

function buyerMessages (orders: string[], token: string): Workload {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  let n = 0
  return {
    name: 'buyer message, rules',
    next: () => {
      const i = n++
      return { method: 'POST', path: `/internal/v1/orders/${orders[i % orders.length]}/messages`, headers, body: JSON.stringify({ text: BUYER_TEXTS[i % BUYER_TEXTS.length] }) }
    }
  }
}

/**
 * Makes every seeded reminder due now and waits until the sweeps of both instances (the
 * service and a second one, started for this and stopped after) posted them all: seconds,
 * and whether each once.
 */
async function remindAll (
  url: string, fixtures: ChatRulesFixtures['reminders'], startSecond: () => Promise<Server>
): Promise<ChatRulesResult['reminders']> {
  const second = await startSecond()
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [{ since }] = await sql<{ since: Date }[]>`select clock_timestamp() as since`
    await sql`insert into chat_rule_reminders (rule_id, order_id, delivered_at, due_at)
      select ${fixtures.ruleId}, id, delivered_at, now() from orders where id = any(${fixtures.orderIds}::uuid[])
      on conflict do nothing`
    const started = performance.now()
    for (;;) {
      const [{ left }] = await sql<{ left: number }[]>`select count(*)::int as left from chat_rule_reminders where rule_id = ${fixtures.ruleId}`
      if (left === 0 || performance.now() - started > 180_000) break
      await sleep(250)
    }
    const seconds = (performance.now() - started) / 1000
    const [{ reminded, orders }] = await sql<{ reminded: number, orders: number }[]>`select count(*)::int as reminded,
        count(distinct order_id)::int as orders from order_messages where rule_id = ${fixtures.ruleId} and created_at >= ${since}`
    log(`chat rules: ${reminded} reminders to ${orders} orders in ${seconds.toFixed(1)} s`)
    return { seconds, reminded, once: reminded === fixtures.orderIds.length && orders === reminded }
  } finally {
    await sql.end({ timeout: 5 })
    await stopServer(second)
  }
}

/** One run of the scenario; `pair` measures the side without rules (as "baseline") against the side with them. */
export async function chatRulesRun (
  service: Server, token: string, fixtures: ChatRulesFixtures, url: string, startSecond: () => Promise<Server>,
  pair: (b: { server: Server, workload: Workload }, s: { server: Server, workload: Workload }) => Promise<{ baseline: Measure, service: Measure }>
): Promise<ChatRulesResult> {
  // Every statement shape of both sides prepared and planned before anything counts.
  for (const workload of [purchases(fixtures.purchase.without, token), purchases(fixtures.purchase.withRules, token),
    purchases(fixtures.purchase.floor, token),
    buyerMessages(fixtures.messages.without, token), buyerMessages(fixtures.messages.withRules, token)]) {
    for (let i = 0; i < 20; i++) {
      const { method, path, headers, body } = workload.next()
      const res = await fetch(`http://127.0.0.1:${service.port}${path}`, { method, headers, body })
      if (res.status !== 201) throw new Error(`chat rules warm-up: ${path} ${res.status} ${await res.text()}`)
    }
  }
  // The buyer's message first, before this run's purchases add their rows to the tables it writes.
  const message = await pair(
    { server: service, workload: buyerMessages(fixtures.messages.without, token) },
    { server: service, workload: buyerMessages(fixtures.messages.withRules, token) })
  const purchase = await pair(
    { server: service, workload: purchases(fixtures.purchase.without, token) },
    { server: service, workload: purchases(fixtures.purchase.withRules, token) })
  const floor = await pair(
    { server: service, workload: purchases(fixtures.purchase.without, token) },
    { server: service, workload: purchases(fixtures.purchase.floor, token) })
  return { purchase, floor, message, reminders: await remindAll(url, fixtures.reminders, startSecond) }
}
