// `npm run bench`: the hot path's and stock's targets (docs/performance.md,
// "Targets") measured in one invocation, BENCH_RUNS times (default 3), each ratio
// from the same run, verdicts on the medians.
//
//  1. Seeds, with set-based SQL: the main database (1 000 reader shops with 120
//     orders and chats, a shop with 50 000 paid orders and one with 30, 1 000
//     writer shops with a batch of fresh orders for every write measurement),
//     a 10 k and a 1 M orders database with the same 100 measured shops, and
//     the embedded default's data directory (demo shop, 10 000 paid orders).
//     The stock database: 1 M encrypted items, 64 + 64 shops of stock products
//     (scripts/bench/stock.ts). All of it through scripts/bench/seed.ts, the one
//     seeding entry point; everything measured goes through HTTP.
//  2. Builds the service and starts it on each of them (Postgres ones with
//     Redis), plus the baseline (scripts/bench/baseline.ts) on the main and on
//     the stock database.
//  3. Warms every server up, then per run, with autocannon: reads (orders list,
//     messages poll) and writes (take, deliver, cancel, POST message, each with
//     an Idempotency-Key), baseline against service; the orders list of the big
//     and the small queue; at 1 M and at 10 k orders; on PGlite. The two sides
//     of a comparison take turns in short slices (and who starts alternates
//     between runs), so the machine's changing load weighs on both alike. The
//     1-minute load average is sampled throughout. Any non-2xx fails the bench.
//     Then 5 000 idle long polls (GET /v1/events) are held on the service while
//     the orders list and the chat post are measured again; last, the stock
//     purchase against the baseline's, taking at 1 M vs ≤ 10, the upload; and
//     a claim replaced from stock against the baseline's (scripts/bench/claims.ts),
//     and a feed page of 50 sealed orders against the baseline's (feed.ts); the chat
//     rules' costs (chat-rules.ts: purchases and buyer messages with rules against
//     without, 5 000 reminders due at once on two instances).
//  4. Prints each run's measurements, then every target with PASS / FAIL.
//
// Settings: scripts/bench/settings.ts (DATABASE_URL, REDIS_URL, DB_POOL_MAX,
// BENCH_RUNS, BENCH_DURATION, BENCH_ONLY, …); BENCH_DB gets _10k and _1m added for
// the table-size pair; with BENCH_POOLER_URL the baselines stay direct.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { measureSides, type LoadSettings, type Schedule, type Side, type Workload } from './load.js'
import {
  cleanUpOnExit, freePort, killAllServers, log, memory, run, sleep, startServer, startService as startProcess, stopAllServers, transpiled,
  waitReady, type Server
} from './processes.js'
import { startBots } from './long-polls.js'
import { failedTargets, runTable, targetTable, type RunResult } from './report.js'
import { benchSettings, scenariosOf, type Scenario } from './settings.js'
import { preflightStock, seedStockBench, stockRun } from './stock.js'
import { claimsRun, preflightClaims, seedClaimsBench } from './claims.js'
import { feedRun, preflightFeed, seedFeedBench } from './feed.js'
import { messagesPoll, ordersList, preflightReads, preflightWrites, writes } from './hot-path.js'
import { createDatabase, databaseUrl, dropDatabase, seedEmbedded, seedMain, seedTableSize, writeOps } from './seed.js'
import { chatRulesRun, seedChatRulesBench } from './chat-rules.js'

const settings = benchSettings('bench')
const { DATABASE_URL, REDIS_URL, BENCH_POOLER_URL, BENCH_DB } = settings
const POOL_MAX = settings.DB_POOL_MAX
const RUNS = settings.BENCH_RUNS
const DURATION_S = settings.BENCH_DURATION
const SHORT_S = settings.BENCH_SHORT_DURATION
const CONNECTIONS = settings.BENCH_CONNECTIONS
/** The measured seconds are cut into slices, the two sides of a comparison taking turns. */
const SLICES = 6
const SHORT_SLICES = 3
const WRITE_ORDERS = settings.BENCH_WRITE_ORDERS
/** Long polls held on the service during the `held` measurements: 5 bots on each of the 1 000 reader shops. */
const BOTS_PER_SHOP = 5
const ONLY = scenariosOf(settings.BENCH_ONLY)
const wants = (scenario: Scenario) => ONLY.has(scenario)
const MEASURED_SHOPS = 100
const EMBEDDED_PAID = 10_000
/** Past this everything is torn down: generous, a run takes about two minutes. */
const DEADLINE_MS = 5 * 60_000 + RUNS * 5 * 60_000

const INTERNAL_TOKEN = 'bench-internal-token-0123456789'
/** The stock database's VALUES_ENCRYPTION_KEY, given to the service and to the baseline. */
const STOCK_KEY = randomBytes(32)
const databases = { main: BENCH_DB, small: `${BENCH_DB}_10k`, large: `${BENCH_DB}_1m`, stock: `${BENCH_DB}_stock` }
let embeddedDir: string | null = null

// ---------------------------------------------------------------- main

let monitor: postgres.Sql
let redis: Redis | null = null
let ownDatabases = false
let cleaning: Promise<void> | null = null

/** The Redis prefixes of the bench's services: their windows, idempotency records and epochs go at the end. */
const redisPrefixes = { main: 'bench:main:', small: 'bench:10k:', large: 'bench:1m:', stock: 'bench:stock:' }

async function dropRedisKeys () {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await client.connect()
    for (const prefix of Object.values(redisPrefixes)) {
      let cursor = '0'
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
        if (keys.length > 0) await client.unlink(...keys)
        cursor = next
      } while (cursor !== '0')
    }
  } finally {
    client.disconnect()
  }
}

function cleanup (): Promise<void> {
  cleaning ??= (async () => {
    redis?.disconnect()
    await stopAllServers()
    if (ownDatabases) await dropRedisKeys().catch((err: Error) => log(`could not drop the bench's Redis keys: ${err.message}`))
    if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true })
    if (ownDatabases && !settings.BENCH_KEEP_DB) {
      for (const database of Object.values(databases)) {
        try { await dropDatabase(DATABASE_URL, database) } catch (err) { log(`could not drop ${database}: ${(err as Error).message}`) }
      }
    } else if (ownDatabases) {
      log(`kept ${Object.values(databases).join(', ')} (BENCH_KEEP_DB=1)`)
    }
    await monitor?.end({ timeout: 2 })
  })()
  return cleaning
}

const nodeArgs = settings.BENCH_NODE_ARGS.split(' ').filter(Boolean)

/** A service on `extra` (its database, Redis, …) with the bench's pool size and token. */
function startService (name: string, extra: Record<string, string>): Promise<Server> {
  return startProcess(name, {
    DB_POOL_MAX: String(POOL_MAX),
    INTERNAL_TOKEN,
    // On a machine busier than the bench (0 turns shedding off), so the preflight is not refused.
    ...(settings.PRESSURE_MAX_EVENT_LOOP_DELAY_MS === undefined ? {} : { PRESSURE_MAX_EVENT_LOOP_DELAY_MS: String(settings.PRESSURE_MAX_EVENT_LOOP_DELAY_MS) }),
    ...extra
  }, { nodeArgs })
}

async function startBaseline (name: string, database: string): Promise<Server> {
  const port = await freePort()
  return startServer(name, [...nodeArgs, '--input-type=module', '--eval', transpiled('baseline.ts')], {
    NODE_ENV: 'production',
    BENCH_BASELINE_PREPARE: settings.BENCH_BASELINE_PREPARE ? '1' : '0',
    PORT: String(port),
    DATABASE_URL: databaseUrl(DATABASE_URL, database),
    DB_POOL_MAX: String(POOL_MAX),
    INTERNAL_TOKEN,
    VALUES_ENCRYPTION_KEY: STOCK_KEY.toString('base64')
  }, port, 'seller-api-bench-baseline')
}

async function main () {
  cleanUpOnExit(DEADLINE_MS, cleanup)

  // One bench per database name at a time: a second one would drop the first one's databases.
  monitor = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  const [{ locked }] = await monitor<{ locked: boolean }[]>`select pg_try_advisory_lock(7310, hashtext(${BENCH_DB})) as locked`
  if (!locked) throw new Error(`another npm run bench is using ${BENCH_DB} right now; wait for it (or set BENCH_DB)`)
  ownDatabases = true
  const started = Date.now()
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`

  log(`building the service and seeding ${Object.values(databases).join(', ')} and the embedded data directory`)
  const mainNeeded = wants('reads') || wants('writes') || wants('backlog') || wants('held')
  const stockNeeded = wants('stock') || wants('claims') || wants('feed') || wants('chat-rules')
  const [fixtures, smallKeys, largeKeys, stockSeeded] = await Promise.all([
    mainNeeded ? createDatabase(DATABASE_URL, databases.main).then(() => seedMain(databaseUrl(DATABASE_URL, databases.main), RUNS, WRITE_ORDERS)) : null,
    wants('table') ? createDatabase(DATABASE_URL, databases.small).then(() => seedTableSize(databaseUrl(DATABASE_URL, databases.small), MEASURED_SHOPS, MEASURED_SHOPS)) : null,
    wants('table') ? createDatabase(DATABASE_URL, databases.large).then(() => seedTableSize(databaseUrl(DATABASE_URL, databases.large), 10_000, MEASURED_SHOPS)) : null,
    stockNeeded
      ? createDatabase(DATABASE_URL, databases.stock).then(async () => {
        const url = databaseUrl(DATABASE_URL, databases.stock)
        const stock = wants('stock') ? await seedStockBench(url, STOCK_KEY) : null
        const claims = wants('claims') ? await seedClaimsBench(url, STOCK_KEY, RUNS) : null
        const feed = wants('feed') ? await seedFeedBench(url, STOCK_KEY) : null
        return { stock, claims, feed, chatRules: wants('chat-rules') ? await seedChatRulesBench(url, STOCK_KEY) : null }
      })
      : null,
    run('npm', ['run', 'build'])
  ])
  const stockFixtures = stockSeeded?.stock ?? null
  const claimsFixtures = stockSeeded?.claims ?? null
  const feedFixtures = stockSeeded?.feed ?? null
  const chatRulesFixtures = stockSeeded?.chatRules ?? null
  let embeddedKey: string | null = null
  if (wants('embedded')) {
    embeddedDir = mkdtempSync(join(os.tmpdir(), 'seller-api-bench-'))
    embeddedKey = await seedEmbedded(embeddedDir, EMBEDDED_PAID)
  }
  log(`${elapsed()} seeded${fixtures ? ` (main: ${fixtures.orderCount} orders, ${fixtures.messageCount} messages)` : ''}; built dist/`)

  const withRedis = (database: string, prefix: string) => ({ DATABASE_URL: databaseUrl(DATABASE_URL, database), REDIS_URL, REDIS_PREFIX: prefix })
  const throughPooler: Record<string, string> = BENCH_POOLER_URL
    ? { DATABASE_URL: databaseUrl(BENCH_POOLER_URL, databases.main), DATABASE_DIRECT_URL: databaseUrl(DATABASE_URL, databases.main) }
    : {}
  const service = mainNeeded ? await startService('service', { ...withRedis(databases.main, redisPrefixes.main), ...throughPooler }) : null
  const baseline = wants('reads') || wants('writes') || wants('held') ? await startBaseline('baseline', databases.main) : null
  const stockEnv = {
    ...withRedis(databases.stock, redisPrefixes.stock), VALUES_ENCRYPTION_KEY: STOCK_KEY.toString('base64'), PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0'
  }
  const stockService = stockSeeded
    // Never shedding, as the baseline never does: a 503 would end the bench.
    ? await startService('service stock', stockEnv)
    : null
  const stockBaseline = stockSeeded ? await startBaseline('baseline stock', databases.stock) : null
  // The reminders are swept by two instances, as in production: the second one runs only
  // while they are (chatRulesRun), never beside a comparison, where its wake-ups on the
  // purchases' notifications would weigh on the service's side alone.
  const startSecondStock = async () => {
    const second = await startService('service stock 2', stockEnv)
    await waitReady(second)
    return second
  }
  const small = wants('table') ? await startService('service 10k', withRedis(databases.small, redisPrefixes.small)) : null
  const large = wants('table') ? await startService('service 1M', withRedis(databases.large, redisPrefixes.large)) : null
  const embedded = wants('embedded') ? await startService('service embedded', { DATA_DIR: embeddedDir! }) : null
  const running = [service, baseline, small, large, embedded, stockService, stockBaseline].filter((s): s is Server => s !== null)
  await Promise.all(running.map((s) => waitReady(s)))
  log(`${elapsed()} started ${running.map((s) => `${s.name} :${s.port}`).join(', ')}`)
  if (baseline && service && fixtures) await preflightReads(baseline, service, fixtures)
  if (baseline && service && fixtures) await preflightWrites(baseline, service, fixtures)
  if (stockService && stockBaseline && stockFixtures) await preflightStock(stockService, stockBaseline, INTERNAL_TOKEN, stockFixtures)
  if (stockService && stockBaseline && claimsFixtures) await preflightClaims(stockService, stockBaseline, claimsFixtures)
  if (stockService && stockBaseline && feedFixtures) await preflightFeed(stockService, stockBaseline, feedFixtures)

  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await redis.connect().catch(() => { redis = null })
  const loadSettings: LoadSettings = { connections: CONNECTIONS, monitor, redis }
  const reads: Schedule = { warmupS: 1, slices: SLICES, sliceS: DURATION_S / SLICES }
  const others: Schedule = { warmupS: 0.5, slices: SHORT_SLICES, sliceS: SHORT_S / SHORT_SLICES }
  const stockSchedule: Schedule = { warmupS: 1, slices: 2 * SHORT_SLICES, sliceS: SHORT_S / SHORT_SLICES }
  // Each write warms its own path for 2 s a side first: the take, the first write measured, used to
  // run on a write path no request had compiled yet (docs/performance/idempotent-take.md).
  const writesSchedule: Schedule = { ...others, warmupS: 2 }
  const on = (server: Server, database: string, workload: Workload): Side => ({ server, database, workload })
  const main = databases.main

  // Every server, every workload, once before anything counts: JIT, pools, prepared statements.
  const warmups: Side[] = []
  if (service && fixtures) warmups.push(on(service, main, ordersList('warm-up', fixtures.readers)), on(service, main, messagesPoll(fixtures)))
  if (baseline && fixtures) warmups.push(on(baseline, main, ordersList('warm-up', fixtures.readers)), on(baseline, main, messagesPoll(fixtures)))
  if (small && smallKeys) warmups.push(on(small, databases.small, ordersList('warm-up', smallKeys)))
  if (large && largeKeys) warmups.push(on(large, databases.large, ordersList('warm-up', largeKeys)))
  if (embedded && embeddedKey) warmups.push(on(embedded, '', ordersList('warm-up', [embeddedKey])))
  if (warmups.length > 0) {
    await measureSides(warmups, { warmupS: 0, slices: 1, sliceS: 3 }, loadSettings)
    log(`${elapsed()} warmed up`)
  }

  const results: RunResult[] = []
  for (let index = 1; index <= RUNS; index++) {
    const during: number[] = []
    const sampler = setInterval(() => during.push(os.loadavg()[0]), 5000)
    const result: RunResult = { load: { before: os.loadavg()[0], during, after: NaN } }
    log(`${elapsed()} run ${index} of ${RUNS}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
    // Who goes first alternates between runs.
    const pair = async (a: Side, b: Side, schedule: Schedule) => {
      const [x, y] = await measureSides(index % 2 ? [a, b] : [b, a], schedule, loadSettings)
      return index % 2 ? { baseline: x, service: y } : { baseline: y, service: x }
    }
    if (wants('reads') && baseline && service && fixtures) {
      result.reads = {
        orders: await pair(on(baseline, main, ordersList('orders list', fixtures.readers)), on(service, main, ordersList('orders list', fixtures.readers)), reads),
        messages: await pair(on(baseline, main, messagesPoll(fixtures)), on(service, main, messagesPoll(fixtures)), reads)
      }
    }
    if (wants('writes') && baseline && service && fixtures) {
      result.writes = {}
      for (const op of writeOps) {
        const targets = (side: string) => fixtures.writes.get(op === 'message' ? 'message' : `${op}:${side}:${index}`)!
        result.writes[op] = await pair(
          on(baseline, main, writes(op, targets('baseline'), `${op}:baseline:${index}`)),
          on(service, main, writes(op, targets('service'), `${op}:service:${index}`)), writesSchedule)
      }
    }
    if (service && fixtures && wants('backlog')) {
      const [big, smallQueue] = await measureSides([
        on(service, main, ordersList('list, big queue', [fixtures.backlog.big])),
        on(service, main, ordersList('list, small queue', [fixtures.backlog.small]))
      ], reads, loadSettings)
      result.backlog = { big, small: smallQueue }
    }
    if (small && large && smallKeys && largeKeys) {
      const [atLarge, atSmall] = await measureSides([
        on(large, databases.large, ordersList('list, 1 M table', largeKeys)),
        on(small, databases.small, ordersList('list, 10 k table', smallKeys))
      ], reads, loadSettings)
      result.tableSize = { large: atLarge, small: atSmall }
    }
    if (embedded && embeddedKey) [result.embedded] = await measureSides([on(embedded, '', ordersList('list, embedded', [embeddedKey]))], others, loadSettings)
    if (wants('held') && service && baseline && fixtures) {
      // The events feed and the hot path together: idle long polls held on the service
      // (GET /v1/events, each bot following its shop's feed), the read and a write measured again.
      const bots = await startBots(service, fixtures.readers, BOTS_PER_SHOP, settings.BENCH_BOT_WAVE_PAUSE_MS)
      try {
        const polls = bots.held()
        log(`${elapsed()} ${polls} long polls held on the service`)
        const orders = await pair(on(baseline, main, ordersList('orders list', fixtures.readers)), on(service, main, ordersList('orders list', fixtures.readers)), reads)
        const message = await pair(
          on(baseline, main, writes('message', fixtures.writes.get('message')!, `message:held:baseline:${index}`)),
          on(service, main, writes('message', fixtures.writes.get('message')!, `message:held:service:${index}`)), others)
        if (bots.failures.length > 0) throw new Error(`long polls failed: ${bots.failures.slice(0, 3).join('; ')}`)
        if (bots.held() < polls) throw new Error(`only ${bots.held()} of ${polls} long polls still held`)
        result.held = { polls, orders, message }
      } finally {
        bots.stop()
      }
      await sleep(1000)
    }
    if (stockService && stockBaseline && stockFixtures) {
      const stock = databases.stock
      result.stock = await stockRun(stockService, stockBaseline, INTERNAL_TOKEN, stockFixtures,
        (b, s) => pair(on(b.server, stock, b.workload), on(s.server, stock, s.workload), stockSchedule))
    }
    if (stockService && stockBaseline && claimsFixtures) {
      const stock = databases.stock
      result.claims = await claimsRun(stockService, stockBaseline, claimsFixtures, index,
        (b, s) => pair(on(b.server, stock, b.workload), on(s.server, stock, s.workload), others))
    }
    if (stockService && stockBaseline && feedFixtures) {
      const stock = databases.stock
      result.feed = await feedRun(stockService, stockBaseline, feedFixtures,
        (b, s) => pair(on(b.server, stock, b.workload), on(s.server, stock, s.workload), reads))
    }
    if (stockService && chatRulesFixtures) {
      const stock = databases.stock
      result.chatRules = await chatRulesRun(stockService, INTERNAL_TOKEN, chatRulesFixtures, databaseUrl(DATABASE_URL, stock), startSecondStock,
        (b, s) => pair(on(b.server, stock, b.workload), on(s.server, stock, s.workload), stockSchedule))
    }
    clearInterval(sampler)
    result.load.after = os.loadavg()[0]
    results.push(result)
    process.stdout.write(runTable(index, result) + '\n')
  }

  const rss = running.map((s) => `${s.name} ${memory(s.child.pid!).peakMb.toFixed(0)}`).join(', ')
  await cleanup()
  process.stdout.write([
    '',
    `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; ${CONNECTIONS} connections; ` +
      `measured per side: reads, backlog, table size ${DURATION_S} s; writes, embedded ${SHORT_S} s; in slices taken in turns; DB_POOL_MAX=${POOL_MAX}`,
    `Peak RSS (MB): ${rss}`,
    targetTable(results)
  ].join('\n') + '\n')
  const failed = failedTargets(results)
  log(`${elapsed()} done${failed.length > 0 ? `: ${failed.length} target(s) FAIL` : ''}`)
  return failed.length === 0
}

main().then((passed) => process.exit(passed ? 0 : 1), async (err) => {
  log(`FAILED: ${err instanceof Error ? err.message : String(err)}`)
  killAllServers()
  await cleanup()
  process.exit(1)
})
