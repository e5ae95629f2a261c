// Shared by the benchmarks (`npm run bench`, `npm run bench:events`): settings,
// autocannon, starting and stopping servers, a process's CPU and memory, and the
// bench database (claimed under an advisory lock, seeded with set-based SQL,
// dropped at the end). See docs/performance.md.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import postgres from 'postgres'
import { openDatabase } from '../db/client.js'
import { seedTaxonomy } from '../db/taxonomy.js'
import { displayPrefix, generateApiKeySecret, hashApiKey } from '../domain/api-key.js'
import { killAllServers, log } from './bench/processes.js'

// Processes (start, wait, stop, CPU) are the main bench's: one copy for every benchmark.
export { cpuSeconds, freePort, log, root, run, sleep, startServer, stopAllServers, stopServer, waitReady, type Server } from './bench/processes.js'

// ---------------------------------------------------------------- settings

export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
export const POOL_MAX = Number(process.env.DB_POOL_MAX || 10)

export const SHOPS = 1000
export const ORDERS_PER_SHOP = 120 // 120 000 orders
const POLLED_ORDERS_PER_SHOP = 2 // chats the messages run reads, 25 messages each
export const MESSAGES_PER_POLLED_ORDER = 25
export const CURSOR_AFTER_MESSAGE = 5 // the cursor sits on the 5th message: 20 come back
const NON_EXTERNAL_SHOPS = 50 // these also sell a product without automation

// ---------------------------------------------------------------- autocannon (no bundled types)

interface Histogram { average: number, mean: number, stddev: number, min: number, max: number, total: number, p50: number, p90: number, p99: number }
export interface AutocannonResult {
  requests: Histogram
  latency: Histogram
  throughput: Histogram
  errors: number
  timeouts: number
  non2xx: number
  duration: number
  statusCodeStats?: Record<string, { count: number }>
}
export interface RawRequest { method: string, path: string, headers: Record<string, string> }
export interface AutocannonOptions {
  url: string
  connections: number
  duration: number
  pipelining?: number
  timeout?: number
  requests: Array<{ method: string, setupRequest: (request: RawRequest) => RawRequest }>
}
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>

// ---------------------------------------------------------------- helpers

const started = Date.now()
export const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`

/** Runs `cleanup` and exits on SIGINT / SIGTERM, or when the run goes past `deadlineMs` (killing the servers first). */
export function cleanUpOnExit (deadlineMs: number, cleanup: () => Promise<void>) {
  setTimeout(() => {
    log(`over the ${deadlineMs / 1000} s budget: stopping`)
    killAllServers()
    cleanup().finally(() => process.exit(2))
  }, deadlineMs).unref()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { cleanup().finally(() => process.exit(130)) })
  }
}

/** Peak and current resident set of a process, in MB. */
export function memory (pid: number): { peakMb: number, rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 }
}

// ---------------------------------------------------------------- database

export interface Fixtures {
  secrets: string[]
  polls: Array<{ secret: string, orderId: string, cursor: string }>
  orderCount: number
  messageCount: number
}

export interface BenchDatabase {
  name: string
  url: string
  /** A connection to the server that holds this run's claim; also for monitoring queries. */
  monitor: postgres.Sql
  /** Creates (or recreates) the database, migrates and seeds it. */
  seed: () => Promise<Fixtures>
  /** Drops the database (unless BENCH_KEEP_DB=1) and gives up the claim. */
  release: () => Promise<void>
}

/**
 * One run per bench database at a time: a second one would drop the first one's
 * database under it (and both would measure each other). The session lock lives
 * on the monitor connection until release.
 */
export async function claimBenchDatabase (name: string): Promise<BenchDatabase> {
  const monitor = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  const [{ locked }] = await monitor<{ locked: boolean }[]>`select pg_try_advisory_lock(7310, hashtext(${name})) as locked`
  if (!locked) {
    await monitor.end({ timeout: 2 })
    throw new Error(`another benchmark is using ${name} right now; wait for it (or set BENCH_DB)`)
  }
  const url = (() => { const u = new URL(DATABASE_URL); u.pathname = `/${name}`; return u.toString() })()
  return {
    name,
    url,
    monitor,
    seed: () => createAndSeed(name, url),
    async release () {
      try {
        if (process.env.BENCH_KEEP_DB === '1') log(`kept database ${name} (BENCH_KEEP_DB=1)`)
        else await dropDatabase(name)
      } catch (err) {
        log(`could not drop ${name}: ${(err as Error).message}`)
      }
      await monitor.end({ timeout: 2 })
    }
  }
}

async function dropDatabase (name: string) {
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
  } finally {
    await admin.end({ timeout: 5 })
  }
}

async function createAndSeed (name: string, benchUrl: string): Promise<Fixtures> {
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end({ timeout: 5 })
  }

  const database = await openDatabase({ url: benchUrl, poolMax: 2 })
  try {
    await database.migrate()
    await seedTaxonomy(database.db)
  } finally {
    await database.close()
  }

  const sql = postgres(benchUrl, { max: 1, onnotice: () => {} })
  try {
    const [{ id: categoryId }] = await sql<{ id: string }[]>`select id from categories order by path_en limit 1`
    const secrets = Array.from({ length: SHOPS }, () => generateApiKeySecret())
    // Shops numbered 0..999 in `name`, so later steps can address shop n.
    const shops = await sql<{ id: string, n: number }[]>`
      insert into shops (name, created_at)
      select 'Bench shop ' || n, now() - interval '1 year'
      from generate_series(0, ${SHOPS - 1}) n
      returning id, (substring(name from 12))::int as n`
    const shopIds = shops.sort((a, b) => a.n - b.n).map((s) => s.id)
    await sql`
      insert into api_keys (shop_id, name, key_hash, prefix)
      select shop_id, 'fulfilment bot', key_hash, prefix
      from unnest(${sql.array(shopIds)}::uuid[], ${sql.array(secrets.map(hashApiKey))}::text[], ${sql.array(secrets.map(displayPrefix))}::text[])
        as t(shop_id, key_hash, prefix)`
    // One external product per shop, plus one without automation in some shops:
    // their orders must stay invisible through /v1.
    await sql`
      insert into products (shop_id, category_id, title, description, active, external, price, employee_reward_type, employee_reward_value)
      select id, ${categoryId}::uuid, 'Steam key: Game ' || name, 'Global key, activates on Steam.', true, true, 499.90, 'percent', 0 from shops
      union all
      select id, ${categoryId}::uuid, 'Manual gift: ' || name, 'Delivered by hand.', true, false, 199.00, 'percent', 0 from shops
      where (substring(name from 12))::int < ${NON_EXTERNAL_SHOPS}`
    // r = the order's rank within its shop (0 oldest). Per 20 orders of a shop:
    // 5 paid, 1 processing, 1 awaiting_confirmation, 2 cancelled, 11 completed.
    await sql`
      with s as (
        select s.id as shop_id, (substring(s.name from 12))::int as n,
               e.id as ext_id, e.title as ext_title, m.id as man_id, m.title as man_title
        from shops s
        join products e on e.shop_id = s.id and e.external
        left join products m on m.shop_id = s.id and not m.external
      ), g as (
        select s.*, r, case
          when r % 20 < 5 then 'paid' when r % 20 = 5 then 'processing' when r % 20 = 6 then 'awaiting_confirmation'
          when r % 20 < 9 then 'cancelled' else 'completed' end as status,
          now() - interval '30 days' + r * interval '5 minutes' + n * interval '1 millisecond' as created
        from s cross join generate_series(0, ${ORDERS_PER_SHOP - 1}) r
      )
      insert into orders (shop_id, product_id, product_title, quantity, amount, status, assignee_type, field_values,
                          delivered_values, created_at, taken_at, delivered_at, completed_at, cancelled_at, updated_at)
      select shop_id,
        case when man_id is not null and r % 10 = 3 then man_id else ext_id end,
        case when man_id is not null and r % 10 = 3 then man_title else ext_title end,
        1 + r % 3,
        (499.90 * (1 + r % 3))::numeric(14, 2),
        status,
        case when status in ('paid', 'cancelled') then 'user' else 'api' end,
        jsonb_build_array(jsonb_build_object('fieldId', '5b0e8a51-8d4e-4f7b-9a55-5f0d3c1e0a11', 'label', 'Email', 'value', 'buyer' || n || '.' || r || '@example.com')),
        case when status in ('awaiting_confirmation', 'completed') then '["XXXX-YYYY-ZZZZ"]'::jsonb else '[]'::jsonb end,
        created,
        case when status in ('processing', 'awaiting_confirmation', 'completed') then created + interval '1 minute' end,
        case when status in ('awaiting_confirmation', 'completed') then created + interval '2 minutes' end,
        case when status = 'completed' then created + interval '1 hour' end,
        case when status = 'cancelled' then created + interval '10 minutes' end,
        created
      from g`
    // The chats the bots poll: each shop's oldest visible paid orders.
    const polled = await sql<{ order_id: string, n: number, cursor: Date }[]>`
      select t.id as order_id, t.n, t.created_at + ${CURSOR_AFTER_MESSAGE} * interval '1 second' as cursor from (
        select o.id, o.created_at, (substring(s.name from 12))::int as n,
               row_number() over (partition by o.shop_id order by o.created_at, o.id) as k
        from orders o join products p on p.id = o.product_id and p.external join shops s on s.id = o.shop_id
        where o.status = 'paid'
      ) t where t.k <= ${POLLED_ORDERS_PER_SHOP}`
    await sql`
      insert into order_messages (order_id, sender_role, text, created_at)
      select o.id,
        case when k % 3 = 0 then 'seller' when k = 1 then 'system' else 'buyer' end,
        case when k = 1 then 'Order paid.' else 'Message ' || k || ': hello, is my key ready? Please send it to the email above.' end,
        o.created_at + k * interval '1 second'
      from orders o cross join generate_series(1, ${MESSAGES_PER_POLLED_ORDER}) k
      where o.id = any(${sql.array(polled.map((p) => p.order_id))}::uuid[])`
    // A little history on every other order (a system line and a buyer line).
    await sql`
      insert into order_messages (order_id, sender_role, text, created_at)
      select o.id, case when k = 1 then 'system' else 'buyer' end,
        case when k = 1 then 'Order paid.' else 'Thanks!' end, o.created_at + k * interval '1 second'
      from orders o cross join generate_series(1, 2) k
      where not (o.id = any(${sql.array(polled.map((p) => p.order_id))}::uuid[]))`
    await sql`vacuum analyze`
    const [{ orders, messages }] = await sql<{ orders: number, messages: number }[]>`
      select (select count(*) from orders)::int as orders, (select count(*) from order_messages)::int as messages`
    return {
      secrets,
      polls: polled.map((p) => ({ secret: secrets[p.n], orderId: p.order_id, cursor: p.cursor.toISOString() })),
      orderCount: orders,
      messageCount: messages
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}
