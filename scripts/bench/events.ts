// `npm run bench:events`: the events feed under the load it is built for. See
// docs/performance/events.md.
//
//  1. Claims and seeds a bench database as `npm run bench` does (1 000 shops with
//     a key and a product with automation each, 120 000 orders).
//  2. NOTIFY cost: 20 connections append events, each in a transaction (bump
//     the shop's seq, insert the event, as the service's writes do), without any
//     hint, with `pg_notify` inside the transaction, and with the hint after
//     commit from a connection that does not wait for the disk (as the service
//     sends it, docs/events.md), twice each, while one connection LISTENs;
//     reports commits/s and commit latency.
//  3. Builds and starts two service instances on Postgres and Redis: the
//     follower (the bots' instance, measured) and a writer.
//  4. Orders-list p99 on the follower (autocannon) without long polls; then opens
//     5 000 long polls (5 bots per shop, each following its own cursor with a
//     wait of 20–30 s) and measures the orders list again while they are held.
//  5. Purchases at BENCH_EVENT_RATE a second on the writer instance, random shops
//     (3 s of warm-up, then BENCH_EVENT_SECONDS measured); every bot records when
//     each event reaches it. Latency = arrival − the
//     event's createdAt (its transaction's start, so a little over commit →
//     received). Every delivery must arrive exactly once.
//  6. The orders list once more with the polls held, then without them.
//  7. Prints the figures and the targets, stops the servers, drops the database.
//
// Settings: scripts/bench/settings.ts (DATABASE_URL, REDIS_URL, DB_POOL_MAX of the
// follower and the writer, BENCH_DB, BENCH_CONNECTIONS and BENCH_DURATION of the
// orders list, BENCH_EVENT_RATE, BENCH_EVENT_SECONDS, BENCH_BOTS_PER_SHOP, …).
import os from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import postgres from 'postgres'
import { measureSides } from './load.js'
import { cleanUpOnExit, elapsed, log, memory, run, sleep, startService, stopAllServers, waitReady, type Server } from './processes.js'
import { createDatabase, databaseUrl, dropDatabase, READER_SHOPS as SHOPS, seedReaders } from './seed.js'
import { startBots, type Bots } from './long-polls.js'
import { benchSettings } from './settings.js'

const settings = benchSettings('bench:events')
const { BENCH_DB, REDIS_URL } = settings
const POOL_MAX = settings.DB_POOL_MAX
const CONNECTIONS = settings.BENCH_CONNECTIONS
const DURATION_S = settings.BENCH_DURATION
const EVENT_RATE = settings.BENCH_EVENT_RATE
const EVENT_SECONDS = settings.BENCH_EVENT_SECONDS
const BOTS_PER_SHOP = settings.BENCH_BOTS_PER_SHOP
const NOTIFY_WRITERS = 20
const NOTIFY_SECONDS = 5
const INTERNAL_TOKEN = 'bench-internal-token-0123456789'

const TARGETS = { latencyP99Ms: 100, rssMb: 400, ordersP99Ratio: 1.2 }
const DEADLINE_MS = 300_000

const percentile = (sorted: number[], p: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
const sortedCopy = (values: number[]) => [...values].sort((a, b) => a - b)
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')

// ---------------------------------------------------------------- 2. NOTIFY cost

type HintMode = 'none' | 'in the transaction' | 'after commit'
interface CommitRun { mode: HintMode, commitsPerSecond: number, p50: number, p99: number }

/** An `order.paid` event of shop $1 with data $2: the shop's seq bumped under its row lock, the event row. */
const appendEventSql = `with s as (update shops set event_seq = event_seq + 1 where id = $1 returning id, event_seq)
  insert into events (shop_id, seq, type, data) select s.id, s.event_seq, 'order.paid', $2::text::jsonb from s`
/** The bench's own channel: the hint's cost, not the service's listeners, is measured. */
const CHANNEL = 'seller_api_bench_notify'

/** NOTIFY_WRITERS connections append events for NOTIFY_SECONDS, each to its own shops (no row-lock waits). */
async function commitRun (sql: postgres.Sql, notifier: postgres.Sql, shopIds: string[], mode: HintMode): Promise<CommitRun> {
  const latencies: number[] = []
  const payload = { order: { id: '00000000-0000-4000-8000-000000000000', status: 'paid', productTitle: 'Steam key: Game', amount: 499.9, fieldValues: [{ label: 'Email', value: 'buyer@example.com' }] } }
  const data = JSON.stringify(payload)
  const until = Date.now() + NOTIFY_SECONDS * 1000
  await Promise.all(Array.from({ length: NOTIFY_WRITERS }, async (_, w) => {
    for (let i = 0; Date.now() < until; i++) {
      const shopId = shopIds[(w * 50 + (i % 50)) % shopIds.length]
      const started = performance.now()
      await sql.begin(async (tx) => {
        await tx.unsafe(appendEventSql, [shopId, data], { prepare: true })
        if (mode === 'in the transaction') await tx`select pg_notify(${CHANNEL}, ${shopId})`
      })
      if (mode === 'after commit') notifier`select pg_notify(${CHANNEL}, ${shopId})`.catch(() => {})
      latencies.push(performance.now() - started)
    }
  }))
  const sorted = sortedCopy(latencies)
  const result = { mode, commitsPerSecond: latencies.length / NOTIFY_SECONDS, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }
  log(`${elapsed()} commits, hint ${mode}: ${result.commitsPerSecond.toFixed(0)}/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`)
  return result
}

async function measureNotifyCost (url: string, shopIds: string[]): Promise<CommitRun[]> {
  const sql = postgres(url, { max: NOTIFY_WRITERS, onnotice: () => {} })
  // One connection that does not wait for the disk, as the service's notifier.
  const notifier = postgres(url, { max: 1, onnotice: () => {}, connection: { synchronous_commit: 'off' } })
  let heard = 0
  const { unlisten } = await sql.listen(CHANNEL, () => { heard++ })
  try {
    const runs: CommitRun[] = []
    for (const mode of ['none', 'in the transaction', 'after commit', 'after commit', 'in the transaction', 'none'] as const) {
      runs.push(await commitRun(sql, notifier, shopIds, mode))
    }
    await notifier`select 1`
    log(`${elapsed()} the listener heard ${heard} hints`)
    // Leave the feed as the seeding made it: no events (and so no deliveries of them).
    await sql`truncate webhook_deliveries, events`
    await sql`update shops set event_seq = 0`
    return runs
  } finally {
    await unlisten()
    await Promise.all([sql.end({ timeout: 5 }), notifier.end({ timeout: 5 })])
  }
}

// ---------------------------------------------------------------- 4. orders list

interface OrdersRun { label: string, rps: number, p50: number, p99: number }

async function ordersRun (server: Server, secrets: string[], label: string): Promise<OrdersRun> {
  let next = 0
  const workload = { name: 'orders list', next: () => ({ method: 'GET' as const, path: '/v1/orders?status=paid&limit=20', headers: { authorization: `Bearer ${secrets[next++ % secrets.length]}` } }) }
  const [m] = await measureSides([{ server, database: BENCH_DB, workload }], { warmupS: 2, slices: 1, sliceS: DURATION_S }, { connections: CONNECTIONS, monitor: database!.monitor, redis: null })
  const run = { label, rps: m.rps, p50: m.p50, p99: m.p99 }
  log(`${elapsed()} orders list, ${label}: ${run.rps.toFixed(0)} req/s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms (load ${loadAverage()})`)
  return run
}

// ---------------------------------------------------------------- 4-5. bots: scripts/bench/long-polls.ts

interface EventsRun { purchases: number, seconds: number, expected: number, delivered: number, duplicates: number, p50: number, p99: number, max: number, overOneSecond: number, loopDelayP99Ms: number }

/** Purchases at EVENT_RATE/s on the writer for EVENT_SECONDS, then waits for every delivery. */
async function eventsRun (writer: Server, productIds: string[], bots: Bots, duration = EVENT_SECONDS): Promise<EventsRun> {
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()
  const deliveredBefore = bots.delivered
  bots.latencies.length = 0
  const started = Date.now()
  let purchases = 0
  let failed = 0
  const pending: Array<Promise<void>> = []
  while (Date.now() - started < duration * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * EVENT_RATE)
    for (; purchases < due; purchases++) {
      const productId = productIds[Math.floor(Math.random() * productIds.length)]
      pending.push(fetch(`http://127.0.0.1:${writer.port}/internal/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ productId, quantity: 1, fieldValues: [] }),
        signal: AbortSignal.timeout(30_000)
      }).then(async (res) => { if (res.status !== 201) { failed++; log(`purchase: ${res.status} ${await res.text()}`) } }))
    }
    await sleep(5)
  }
  await Promise.all(pending.map((p) => p.catch((err: Error) => { failed++; log(`purchase: ${err.message}`) })))
  const seconds = (Date.now() - started) / 1000
  if (failed > 0) throw new Error(`${failed} purchases failed`)
  const expected = purchases * BOTS_PER_SHOP
  // Up to 35 s, past the longest wait: an event whose hint was lost still arrives, late, when its bot polls again.
  for (let i = 0; i < 700 && bots.delivered - deliveredBefore < expected; i++) await sleep(50)
  loopDelay.disable()
  const sorted = sortedCopy(bots.latencies)
  const result = {
    purchases,
    seconds,
    expected,
    delivered: bots.delivered - deliveredBefore,
    duplicates: bots.duplicates,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? NaN,
    overOneSecond: sorted.filter((ms) => ms > 1000).length,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6
  }
  log(`${elapsed()} ${purchases} purchases in ${seconds.toFixed(1)} s: ${result.delivered}/${expected} deliveries, commit → bot p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms, ${result.overOneSecond} over 1 s`)
  return result
}

// ---------------------------------------------------------------- report

function report (figures: {
  commits: CommitRun[]
  orders: OrdersRun[]
  events: EventsRun
  rss: { idle: { rssMb: number }, held: { rssMb: number }, peakMb: number }
  bots: number
  loads: string[]
}) {
  const { commits, orders, events, rss } = figures
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
  const commitRate = (mode: HintMode) => mean(commits.filter((c) => c.mode === mode).map((c) => c.commitsPerSecond))
  const without = orders.filter((o) => o.label.startsWith('without'))
  const withPolls = orders.filter((o) => o.label.startsWith('with '))
  const ordersRatio = mean(withPolls.map((o) => o.p99)) / mean(without.map((o) => o.p99))
  const lines = ['', `Events feed: ${SHOPS} shops × ${BOTS_PER_SHOP} bots = ${figures.bots} long polls on one instance; DB_POOL_MAX=${POOL_MAX}`,
    `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; load average ${figures.loads.join(' → ')}`, '',
    `NOTIFY cost (${NOTIFY_WRITERS} connections appending events, ${NOTIFY_SECONDS} s per run, one listener):`,
    '| hint | commits/s | p50 ms | p99 ms |', '|---|--:|--:|--:|',
    ...commits.map((c) => `| ${c.mode} | ${c.commitsPerSecond.toFixed(0)} | ${c.p50.toFixed(2)} | ${c.p99.toFixed(2)} |`),
    `commits/s against no hint: in the transaction ${(commitRate('in the transaction') / commitRate('none')).toFixed(2)}×, after commit ${(commitRate('after commit') / commitRate('none')).toFixed(2)}×`, '',
    `GET /v1/orders?status=paid&limit=20 on the follower (${CONNECTIONS} connections, ${DURATION_S} s per run):`,
    '| run | req/s | p50 ms | p99 ms |', '|---|--:|--:|--:|',
    ...orders.map((o) => `| ${o.label} | ${o.rps.toFixed(0)} | ${o.p50.toFixed(1)} | ${o.p99.toFixed(1)} |`),
    `p99 with the long polls / without: ${ordersRatio.toFixed(2)}×`, '',
    `Purchases on the writer at ${EVENT_RATE}/s for ${EVENT_SECONDS} s: ${events.purchases} events (${(events.purchases / events.seconds).toFixed(0)} events/s, ${(events.delivered / events.seconds).toFixed(0)} deliveries/s)`,
    `  delivered ${events.delivered} of ${events.expected}, duplicates ${events.duplicates}`,
    `  commit → bot received: p50 ${events.p50} ms, p99 ${events.p99} ms, max ${events.max} ms, ${events.overOneSecond} over 1 s (bench process event-loop delay p99 ${events.loopDelayP99Ms.toFixed(1)} ms)`,
    `Follower RSS: ${rss.idle.rssMb.toFixed(0)} MB before the long polls, ${rss.held.rssMb.toFixed(0)} MB holding ${figures.bots}, peak ${rss.peakMb.toFixed(0)} MB`, '']
  const mark = (ok: boolean) => ok ? 'pass' : 'MISS'
  lines.push(`Targets: commit → received p99 ≤ ${TARGETS.latencyP99Ms} ms ${mark(events.p99 <= TARGETS.latencyP99Ms)}; ` +
    `every delivery once ${mark(events.delivered === events.expected && events.duplicates === 0)}; ` +
    `RSS < ${TARGETS.rssMb} MB ${mark(rss.peakMb < TARGETS.rssMb)}; ` +
    `orders p99 ≤ ${TARGETS.ordersP99Ratio}× ${mark(ordersRatio <= TARGETS.ordersP99Ratio)}`)
  process.stdout.write(lines.join('\n') + '\n')
}

// ---------------------------------------------------------------- main

interface BenchDatabase { url: string, monitor: postgres.Sql, release: () => Promise<void> }

/** The bench database, claimed under an advisory lock (a second run would drop it under the first), dropped at the end. */
async function claimBenchDatabase (serverUrl: string, name: string, keep: boolean): Promise<BenchDatabase> {
  const monitor = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  const [{ locked }] = await monitor<{ locked: boolean }[]>`select pg_try_advisory_lock(7310, hashtext(${name})) as locked`
  if (!locked) {
    await monitor.end({ timeout: 2 })
    throw new Error(`another benchmark is using ${name} right now; wait for it (or set BENCH_DB)`)
  }
  return {
    url: databaseUrl(serverUrl, name),
    monitor,
    async release () {
      if (keep) log(`kept database ${name} (BENCH_KEEP_DB=1)`)
      else await dropDatabase(serverUrl, name).catch((err: Error) => log(`could not drop ${name}: ${err.message}`))
      await monitor.end({ timeout: 2 })
    }
  }
}

let database: BenchDatabase | undefined
let bots: Bots | undefined
let cleaning: Promise<void> | null = null
function cleanup (): Promise<void> {
  cleaning ??= (async () => {
    bots?.stop()
    await stopAllServers()
    await database?.release()
  })()
  return cleaning
}

async function main () {
  cleanUpOnExit(DEADLINE_MS, cleanup)
  const loads = [loadAverage()]

  database = await claimBenchDatabase(settings.DATABASE_URL, BENCH_DB, settings.BENCH_KEEP_DB)
  log(`building the service and seeding ${BENCH_DB}`)
  const [fixtures] = await Promise.all([createDatabase(settings.DATABASE_URL, BENCH_DB).then(() => seedReaders(database!.url)), run('npm', ['run', 'build'])])
  const sql = postgres(database.url, { max: 1, onnotice: () => {} })
  const catalog = await sql<Array<{ shop_id: string, id: string }>>`select shop_id, id from products where external`.finally(() => sql.end())
  const productIds = catalog.map((p) => p.id)
  log(`${elapsed()} seeded ${fixtures.orderCount} orders; built dist/`)

  const commits = await measureNotifyCost(database.url, [...new Set(catalog.map((p) => p.shop_id))])

  const env = { DATABASE_URL: database.url, REDIS_URL, DB_POOL_MAX: String(POOL_MAX), INTERNAL_TOKEN }
  const follower = await startService('follower', env)
  const writer = await startService('writer', env)
  await Promise.all([waitReady(follower), waitReady(writer)])
  log(`${elapsed()} follower on :${follower.port} (pid ${follower.child.pid}), writer on :${writer.port}`)

  const orders: OrdersRun[] = []
  orders.push(await ordersRun(follower, fixtures.secrets, 'without long polls (1)'))
  const idle = memory(follower.child.pid!)
  bots = await startBots(follower, fixtures.secrets, BOTS_PER_SHOP, settings.BENCH_BOT_WAVE_PAUSE_MS)
  const held = memory(follower.child.pid!)
  log(`${elapsed()} ${bots.held()} long polls held; follower RSS ${held.rssMb.toFixed(0)} MB`)
  orders.push(await ordersRun(follower, fixtures.secrets, `with ${bots.held()} long polls (1)`))
  loads.push(loadAverage())
  // A warm-up (first connections, prepared statements, JIT of both instances), not counted.
  await eventsRun(writer, productIds, bots, 3)
  const events = await eventsRun(writer, productIds, bots)
  orders.push(await ordersRun(follower, fixtures.secrets, `with ${bots.held()} long polls (2)`))
  const peakMb = memory(follower.child.pid!).peakMb
  bots.stop()
  await sleep(1000)
  orders.push(await ordersRun(follower, fixtures.secrets, 'without long polls (2)'))
  loads.push(loadAverage())

  await cleanup()
  report({ commits, orders, events, rss: { idle, held, peakMb }, bots: SHOPS * BOTS_PER_SHOP, loads })
  log(`${elapsed()} done`)
}

main().then(() => process.exit(0), async (err) => {
  log(`FAILED: ${err instanceof Error ? err.message : String(err)}`)
  await cleanup()
  process.exit(1)
})
