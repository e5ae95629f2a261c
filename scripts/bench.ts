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
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { isDeepStrictEqual } from 'node:util'
import { Redis } from 'ioredis'
import type postgres from 'postgres'
import ts from 'typescript'
import {
  autocannon, claimBenchDatabase, cleanUpOnExit, cpuSeconds, CURSOR_AFTER_MESSAGE, elapsed, freePort, log, memory, MESSAGES_PER_POLLED_ORDER,
  ORDERS_PER_SHOP, POOL_MAX, REDIS_URL, run, servers, SHOPS, sleep, startServer, stopServer, waitReady,
  type AutocannonOptions, type AutocannonResult, type BenchDatabase, type Fixtures, type Server
} from './bench-kit.js'

// ---------------------------------------------------------------- settings

const BENCH_DB = process.env.BENCH_DB || 'seller_api_bench'
const DURATION_S = Number(process.env.BENCH_DURATION || 15)
const WARMUP_S = Number(process.env.BENCH_WARMUP || 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32)

const TARGETS = { ratio: 0.7, p99Ms: 50, rssMb: 250 }
/** The whole run must stay under 3 minutes; past this everything is torn down. */
const DEADLINE_MS = 175_000

// ---------------------------------------------------------------- measuring

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

// ---------------------------------------------------------------- baseline

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
let database: BenchDatabase | undefined
let monitor: postgres.Sql
let redisClient: Redis | null = null
let cleaning: Promise<void> | null = null
function cleanup (): Promise<void> {
  cleaning ??= (async () => {
    redisClient?.disconnect()
    await Promise.allSettled(servers.map(stopServer))
    await database?.release()
  })()
  return cleaning
}

async function main () {
  cleanUpOnExit(DEADLINE_MS, cleanup)

  database = await claimBenchDatabase(BENCH_DB)
  monitor = database.monitor

  log(`building the service and seeding ${BENCH_DB} (${SHOPS} shops, ${SHOPS * ORDERS_PER_SHOP} orders)`)
  const [fixtures] = await Promise.all([database.seed(), run('npm', ['run', 'build'])])
  log(`${elapsed()} seeded ${fixtures.orderCount} orders, ${fixtures.messageCount} messages; built dist/`)

  const [servicePort, baselinePort] = [await freePort(), await freePort()]
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const service = startServer('service', [...nodeArgs, 'dist/server.js'], {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(servicePort),
    DATABASE_URL: database.url,
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
    DATABASE_URL: database.url,
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
