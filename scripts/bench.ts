// `npm run bench`: the seller bot's hot path under load, side by side with a
// baseline, in one invocation. See docs/performance.md.
//
//  1. A dedicated database (BENCH_DB, default seller_api_bench; dropped and
//     recreated) is migrated and seeded with set-based SQL: 1 000 shops with one
//     API key each, 120 000 orders, chat messages.
//  2. The service is built and started (`node dist/server.js`) next to the
//     baseline (scripts/bench-baseline.ts: bare Fastify + postgres.js, the same
//     two SQL round trips), both on real Postgres; the service on Redis too.
//  3. autocannon (32 connections) drives GET /v1/orders?status=paid&limit=20 and
//     GET /v1/orders/{id}/messages?limit=50&cursor=… against each, rotating over
//     every shop's key, a warm-up then a measured run, baseline and service
//     alternating. Any non-2xx response or socket error fails the run.
//  4. Prints req/s, p50/p99 latency, peak RSS (VmHWM) and the service/baseline
//     ratio, checks the targets, kills both servers and drops the database.
//
// Env: DATABASE_URL, REDIS_URL (defaults: local Postgres and Redis), DB_POOL_MAX
// (default 10, both servers), BENCH_DURATION (measured seconds, default 15),
// BENCH_WARMUP (seconds, default 3), BENCH_CONNECTIONS (default 32), BENCH_DB,
// BENCH_NODE_ARGS (extra node flags for both servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
// BENCH_BASELINE_PREPARE=0 (baseline without named prepared statements, as drizzle does),
// BENCH_KEEP_DB=1 (leave the seeded database for EXPLAIN and the like).
import { spawn, type ChildProcess } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import ts from 'typescript'
import { openDatabase } from '../db/client.js'
import { seedTaxonomy } from '../db/taxonomy.js'
import { displayPrefix, generateApiKeySecret, hashApiKey } from '../domain/api-key.js'

// ---------------------------------------------------------------- settings

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
const BENCH_DB = process.env.BENCH_DB || 'seller_api_bench'
const POOL_MAX = Number(process.env.DB_POOL_MAX || 10)
const DURATION_S = Number(process.env.BENCH_DURATION || 15)
const WARMUP_S = Number(process.env.BENCH_WARMUP || 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32)

const SHOPS = 1000
const ORDERS_PER_SHOP = 120 // 120 000 orders
const POLLED_ORDERS_PER_SHOP = 2 // chats the messages run reads, 25 messages each
const MESSAGES_PER_POLLED_ORDER = 25
const CURSOR_AFTER_MESSAGE = 5 // the cursor sits on the 5th message: 20 come back
const NON_EXTERNAL_SHOPS = 50 // these also sell a product without automation

const TARGETS = { ratio: 0.7, p99Ms: 50, rssMb: 250 }
/** The whole run must stay under 3 minutes; past this everything is torn down. */
const DEADLINE_MS = 175_000

const root = fileURLToPath(new URL('..', import.meta.url))
const benchUrl = (() => { const u = new URL(DATABASE_URL); u.pathname = `/${BENCH_DB}`; return u.toString() })()

// ---------------------------------------------------------------- autocannon (no bundled types)

interface Histogram { average: number, mean: number, stddev: number, min: number, max: number, total: number, p50: number, p90: number, p99: number }
interface AutocannonResult {
  requests: Histogram
  latency: Histogram
  throughput: Histogram
  errors: number
  timeouts: number
  non2xx: number
  duration: number
  statusCodeStats?: Record<string, { count: number }>
}
interface RawRequest { method: string, path: string, headers: Record<string, string> }
interface AutocannonOptions {
  url: string
  connections: number
  duration: number
  pipelining?: number
  timeout?: number
  requests: Array<{ method: string, setupRequest: (request: RawRequest) => RawRequest }>
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>

// ---------------------------------------------------------------- helpers

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

interface Server { name: string, port: number, child: ChildProcess, output: string[], exited: boolean, applicationName: string }
const servers: Server[] = []

function startServer (name: string, args: string[], env: Record<string, string>, port: number, applicationName: string): Server {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...env, PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] })
  const server: Server = { name, port, child, output: [], exited: false, applicationName }
  const keep = (chunk: Buffer) => {
    server.output.push(...chunk.toString().split('\n').filter(Boolean))
    if (server.output.length > 40) server.output.splice(0, server.output.length - 40)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  child.on('exit', () => { server.exited = true })
  servers.push(server)
  return server
}

async function waitReady (server: Server, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (server.exited) throw new Error(`${server.name} exited during start:\n${server.output.join('\n')}`)
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/healthz`)
      if (res.ok) return
    } catch { /* not listening yet */ }
    await sleep(100)
  }
  throw new Error(`${server.name} not ready after ${timeoutMs} ms:\n${server.output.join('\n')}`)
}

async function stopServer (server: Server) {
  if (server.exited) return
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()))
  server.child.kill('SIGTERM')
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

/** Peak and current resident set of a process, in MB. */
function memory (pid: number): { peakMb: number, rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 }
}

const clockTicks = (() => { try { return Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100 } catch { return 100 } })()
/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // fields from #3 on
  return (Number(fields[11]) + Number(fields[12])) / clockTicks // utime #14, stime #15
}

/**
 * CPU seconds used so far by the Postgres backends serving one server's pool
 * (found by application_name in the bench database; Postgres must be local).
 */
async function backendCpuSeconds (monitor: postgres.Sql, applicationName: string): Promise<Map<number, number>> {
  const rows = await monitor<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = ${BENCH_DB} and application_name = ${applicationName}`
  const cpu = new Map<number, number>()
  for (const { pid } of rows) {
    try { cpu.set(pid, cpuSeconds(pid)) } catch { /* not local, or gone */ }
  }
  return cpu
}

/** Redis server CPU seconds so far (INFO cpu), or NaN without Redis. Redis is shared: other clients count too. */
async function redisCpuSeconds (): Promise<number> {
  if (!redisClient) return NaN
  try {
    const info = await redisClient.info('cpu')
    const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN)
    return field('used_cpu_sys') + field('used_cpu_user')
  } catch {
    return NaN
  }
}

// ---------------------------------------------------------------- database

interface Fixtures {
  secrets: string[]
  polls: Array<{ secret: string, orderId: string, cursor: string }>
  orderCount: number
  messageCount: number
}

async function createAndSeed (): Promise<Fixtures> {
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`drop database if exists "${BENCH_DB}" with (force)`)
    await admin.unsafe(`create database "${BENCH_DB}"`)
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

async function dropDatabase () {
  if (!ownDatabase) return
  if (process.env.BENCH_KEEP_DB === '1') return log(`kept database ${BENCH_DB} (BENCH_KEEP_DB=1)`)
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    await admin.unsafe(`drop database if exists "${BENCH_DB}" with (force)`)
  } finally {
    await admin.end({ timeout: 5 })
  }
}

// ---------------------------------------------------------------- build and start

function run (command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => { output += c.toString() })
    child.stderr.on('data', (c: Buffer) => { output += c.toString() })
    child.on('error', reject)
    child.on('exit', (code) => code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${output}`)))
  })
}

/** The baseline as plain ESM (type annotations stripped), run with `node --eval` from the repo root. */
function baselineSource (): string {
  const source = readFileSync(new URL('./bench-baseline.ts', import.meta.url), 'utf8')
  return ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
}

// ---------------------------------------------------------------- load

type Endpoint = 'orders' | 'messages'
interface Measure {
  rps: number
  p50: number
  p99: number
  requests: number
  /** CPU per request of the Node process, its Postgres backends, and Redis (whole server), in ms. */
  cpuPerRequestMs: number
  dbCpuPerRequestMs: number
  redisCpuPerRequestMs: number
  /** Postgres transactions (= statements outside a transaction) per request. */
  dbXactsPerRequest: number
  loadCpuPercent: number
}

/** Committed + rolled back transactions of the bench database (statistics flush with ≤ 1 s delay). */
async function xacts (): Promise<number> {
  await sleep(1100)
  const [row] = await monitor<{ n: string }[]>`select xact_commit + xact_rollback as n from pg_stat_database where datname = ${BENCH_DB}`
  return Number(row.n)
}

function requestsFor (endpoint: Endpoint, fixtures: Fixtures): AutocannonOptions['requests'] {
  let next = 0
  if (endpoint === 'orders') {
    const { secrets } = fixtures
    return [{
      method: 'GET',
      setupRequest (request) {
        const secret = secrets[next++ % secrets.length]
        request.path = '/v1/orders?status=paid&limit=20'
        request.headers = { ...request.headers, authorization: `Bearer ${secret}` }
        return request
      }
    }]
  }
  const { polls } = fixtures
  return [{
    method: 'GET',
    setupRequest (request) {
      const poll = polls[next++ % polls.length]
      request.path = `/v1/orders/${poll.orderId}/messages?limit=50&cursor=${encodeURIComponent(poll.cursor)}`
      request.headers = { ...request.headers, authorization: `Bearer ${poll.secret}` }
      return request
    }
  }]
}

async function load (server: Server, endpoint: Endpoint, fixtures: Fixtures, seconds: number): Promise<AutocannonResult> {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
    requests: requestsFor(endpoint, fixtures)
  })
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${server.name} ${endpoint}: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts ` +
      `(status codes: ${JSON.stringify(result.statusCodeStats ?? {})})\n${server.output.slice(-10).join('\n')}`)
  }
  if (server.exited) throw new Error(`${server.name} died during the ${endpoint} run:\n${server.output.join('\n')}`)
  return result
}

async function measure (server: Server, endpoint: Endpoint, fixtures: Fixtures): Promise<Measure> {
  await load(server, endpoint, fixtures, WARMUP_S)
  const pid = server.child.pid!
  const xactsBefore = await xacts()
  const backendsBefore = await backendCpuSeconds(monitor, server.applicationName)
  const redisBefore = await redisCpuSeconds()
  const cpuBefore = cpuSeconds(pid)
  const selfBefore = process.cpuUsage()
  const result = await load(server, endpoint, fixtures, DURATION_S)
  const cpu = cpuSeconds(pid) - cpuBefore
  const self = process.cpuUsage(selfBefore)
  const redisCpu = (await redisCpuSeconds()) - redisBefore
  const xactsDuring = (await xacts()) - xactsBefore
  let dbCpu = 0
  for (const [backend, before] of backendsBefore) {
    try { dbCpu += cpuSeconds(backend) - before } catch { /* closed meanwhile */ }
  }
  const n = result.requests.total
  const m = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: n,
    cpuPerRequestMs: (cpu * 1000) / n,
    dbCpuPerRequestMs: backendsBefore.size > 0 ? (dbCpu * 1000) / n : NaN,
    redisCpuPerRequestMs: (redisCpu * 1000) / n,
    dbXactsPerRequest: xactsDuring / n,
    loadCpuPercent: ((self.user + self.system) / 1e6 / result.duration) * 100
  }
  log(`${elapsed()} ${server.name.padEnd(8)} ${endpoint.padEnd(8)} ${m.rps.toFixed(0)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  ` +
    `CPU ms/req: node ${m.cpuPerRequestMs.toFixed(3)}, postgres ${m.dbCpuPerRequestMs.toFixed(3)} (${backendsBefore.size} backends), ` +
    `redis ${m.redisCpuPerRequestMs.toFixed(3)}; ${m.dbXactsPerRequest.toFixed(2)} db xacts/req; autocannon ${m.loadCpuPercent.toFixed(0)}% CPU`)
  return m
}

/** One request per endpoint to each server: both must answer 200 with the same JSON. */
async function preflight (baseline: Server, service: Server, fixtures: Fixtures) {
  const poll = fixtures.polls[0]
  const checks: Array<{ endpoint: Endpoint, path: string, secret: string, check: (body: any) => string | null }> = [
    {
      endpoint: 'orders',
      path: '/v1/orders?status=paid&limit=20',
      secret: fixtures.secrets[0],
      check: (b) => b?.data?.orders?.length === 20 && b.data.total > 20 ? null : 'expected a full page of 20 orders out of more'
    },
    {
      endpoint: 'messages',
      path: `/v1/orders/${poll.orderId}/messages?limit=50&cursor=${encodeURIComponent(poll.cursor)}`,
      secret: poll.secret,
      check: (b) => b?.data?.messages?.length === MESSAGES_PER_POLLED_ORDER - CURSOR_AFTER_MESSAGE ? null : 'unexpected message count'
    }
  ]
  for (const { endpoint, path, secret, check } of checks) {
    const bodies: string[] = []
    const parsed: unknown[] = []
    for (const server of [baseline, service]) {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { authorization: `Bearer ${secret}` } })
      const text = await res.text()
      const problem = res.status !== 200 ? `status ${res.status}` : check(JSON.parse(text))
      if (problem) throw new Error(`preflight ${server.name} ${endpoint}: ${problem}: ${text.slice(0, 500)}`)
      bodies.push(text)
      parsed.push(JSON.parse(text))
    }
    // Same data; key order inside the jsonb fieldValues may differ (the service serializes by schema).
    if (!isDeepStrictEqual(parsed[0], parsed[1])) {
      throw new Error(`preflight ${endpoint}: baseline and service bodies differ\nbaseline: ${bodies[0].slice(0, 400)}\nservice:  ${bodies[1].slice(0, 400)}`)
    }
    log(`preflight ${endpoint}: same JSON from both servers (${bodies[0].length} / ${bodies[1].length} bytes)`)
  }
}

// ---------------------------------------------------------------- report

interface Row { endpoint: Endpoint, baseline: Measure, service: Measure }

function report (rows: Row[], rss: Record<'baseline' | 'service', { peakMb: number, rssMb: number }>, fixtures: Fixtures) {
  const f0 = (n: number) => n.toFixed(0)
  const lines: string[] = []
  lines.push('')
  lines.push(`Seller bot hot path: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured per run, ` +
    `${fixtures.orderCount} orders / ${fixtures.messageCount} messages over ${SHOPS} shops, DB_POOL_MAX=${POOL_MAX}`)
  lines.push(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, load average before the runs ${loadBefore}`)
  for (const { endpoint, baseline, service } of rows) {
    const path = endpoint === 'orders' ? 'GET /v1/orders?status=paid&limit=20' : 'GET /v1/orders/{id}/messages?limit=50&cursor=… (20 messages)'
    lines.push('')
    lines.push(path)
    lines.push('| target   |   req/s | p50 ms | p99 ms | peak RSS MB | CPU ms/req: node | postgres | redis |')
    lines.push('|----------|--------:|-------:|-------:|------------:|-----------------:|---------:|------:|')
    for (const [name, m] of [['baseline', baseline], ['service', service]] as const) {
      const redis = name === 'baseline' ? '–' : m.redisCpuPerRequestMs.toFixed(3)
      lines.push(`| ${name.padEnd(8)} | ${f0(m.rps).padStart(7)} | ${String(m.p50).padStart(6)} | ${String(m.p99).padStart(6)} | ` +
        `${f0(rss[name].peakMb).padStart(11)} | ${m.cpuPerRequestMs.toFixed(3).padStart(16)} | ${m.dbCpuPerRequestMs.toFixed(3).padStart(8)} | ${redis.padStart(5)} |`)
    }
    lines.push(`service/baseline throughput: ${(service.rps / baseline.rps).toFixed(2)}×`)
  }
  lines.push('')
  lines.push(`Targets (service): ≥ ${TARGETS.ratio}× baseline throughput, p99 < ${TARGETS.p99Ms} ms at ${CONNECTIONS} connections, peak RSS < ${TARGETS.rssMb} MB`)
  const mark = (ok: boolean) => ok ? 'pass' : 'MISS'
  for (const { endpoint, baseline, service } of rows) {
    const ratio = service.rps / baseline.rps
    lines.push(`  ${endpoint.padEnd(8)} throughput ${ratio.toFixed(2)}× ${mark(ratio >= TARGETS.ratio)}   p99 ${service.p99} ms ${mark(service.p99 < TARGETS.p99Ms)}`)
  }
  lines.push(`  RSS      service peak ${f0(rss.service.peakMb)} MB ${mark(rss.service.peakMb < TARGETS.rssMb)} (baseline ${f0(rss.baseline.peakMb)} MB)`)
  process.stdout.write(lines.join('\n') + '\n')
}

// ---------------------------------------------------------------- main

let loadBefore = ''
/** Set once this run holds the bench lock: only then may it drop BENCH_DB. */
let ownDatabase = false
let monitor: postgres.Sql
let redisClient: Redis | null = null
let cleaning: Promise<void> | null = null
function cleanup (): Promise<void> {
  cleaning ??= (async () => {
    redisClient?.disconnect()
    await Promise.allSettled(servers.map(stopServer))
    try { await dropDatabase() } catch (err) { log(`could not drop ${BENCH_DB}: ${(err as Error).message}`) }
    await monitor?.end({ timeout: 2 })
  })()
  return cleaning
}

async function main () {
  const deadline = setTimeout(() => {
    log(`over the ${DEADLINE_MS / 1000} s budget: stopping`)
    for (const s of servers) if (!s.exited) s.child.kill('SIGKILL')
    cleanup().finally(() => process.exit(2))
  }, DEADLINE_MS)
  deadline.unref()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { cleanup().finally(() => process.exit(130)) })
  }

  // One run per bench database at a time: a second one would drop the first one's
  // database under it (and both would measure each other). The session lock lives
  // on the monitor connection until cleanup.
  monitor = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  const [{ locked }] = await monitor<{ locked: boolean }[]>`select pg_try_advisory_lock(7310, hashtext(${BENCH_DB})) as locked`
  if (!locked) throw new Error(`another npm run bench is using ${BENCH_DB} right now; wait for it (or set BENCH_DB)`)
  ownDatabase = true

  log(`building the service and seeding ${BENCH_DB} (${SHOPS} shops, ${SHOPS * ORDERS_PER_SHOP} orders)`)
  const [fixtures] = await Promise.all([createAndSeed(), run('npm', ['run', 'build'])])
  log(`${elapsed()} seeded ${fixtures.orderCount} orders, ${fixtures.messageCount} messages; built dist/`)

  const [servicePort, baselinePort] = [await freePort(), await freePort()]
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const service = startServer('service', [...nodeArgs, 'dist/server.js'], {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(servicePort),
    DATABASE_URL: benchUrl,
    REDIS_URL,
    DB_POOL_MAX: String(POOL_MAX),
    RATE_LIMIT_MAX: '1000000000',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: `http://127.0.0.1:${servicePort}`
  }, servicePort, 'shop-seller-api')
  const baseline = startServer('baseline', [...nodeArgs, '--input-type=module', '--eval', baselineSource()], {
    NODE_ENV: 'production',
    BENCH_BASELINE_PREPARE: process.env.BENCH_BASELINE_PREPARE ?? '1',
    PORT: String(baselinePort),
    DATABASE_URL: benchUrl,
    DB_POOL_MAX: String(POOL_MAX)
  }, baselinePort, 'seller-api-bench-baseline')
  await Promise.all([waitReady(service), waitReady(baseline)])
  log(`${elapsed()} service on :${servicePort} (pid ${service.child.pid}), baseline on :${baselinePort} (pid ${baseline.child.pid})`)
  await preflight(baseline, service, fixtures)
  redisClient = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await redisClient.connect().catch(() => { redisClient = null })

  loadBefore = os.loadavg().map((l) => l.toFixed(2)).join(' ')
  // Alternating, and mirrored (B S S B) so neither side always goes first.
  const ordersBaseline = await measure(baseline, 'orders', fixtures)
  const ordersService = await measure(service, 'orders', fixtures)
  const messagesService = await measure(service, 'messages', fixtures)
  const messagesBaseline = await measure(baseline, 'messages', fixtures)
  const rss = { baseline: memory(baseline.child.pid!), service: memory(service.child.pid!) }

  await cleanup()
  report([
    { endpoint: 'orders', baseline: ordersBaseline, service: ordersService },
    { endpoint: 'messages', baseline: messagesBaseline, service: messagesService }
  ], rss, fixtures)
  log(`${elapsed()} done`)
}

main().then(() => process.exit(0), async (err) => {
  log(`FAILED: ${err instanceof Error ? err.message : String(err)}`)
  await cleanup()
  process.exit(1)
})
