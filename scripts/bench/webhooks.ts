// `npm run bench:webhooks`: how fast events reach a webhook receiver. See
// docs/performance/webhooks.md.
//
//  1. A dedicated database (BENCH_DB, default seller_api_bench_webhooks; dropped
//     and recreated, one run per name at a time) is migrated; the service is
//     built and BENCH_INSTANCES instances (`node dist/server.js`, default 1) start
//     on it with Redis and their webhook worker, allowed to deliver to 127.0.0.1
//     (scripts/bench/service-instances.ts, shared with bench:delivery).
//  2. A receiver in this process (node:http on 127.0.0.1) answers 200 at once and
//     checks every signature (HMAC with node:crypto; the tests use the
//     standardwebhooks package). BENCH_SHOPS shops (default 20) each get a product
//     with automation and an endpoint pointing at the receiver.
//  3. Steady load at BENCH_RATE events per second (default 200) for BENCH_DURATION
//     seconds (default 30), open loop, spread over the shops. BENCH_SOURCE=store
//     (default): this process appends `order.paid` events as the service's
//     writes append theirs (scripts/bench/seed.ts eventWriter: shop row lock,
//     event row, fan-out to the endpoints; the hint after commit), and
//     latency = received at the receiver − the commit. BENCH_SOURCE=api: buyers' purchases through the
//     service's operator API (POST /internal/v1/orders, spread over the
//     instances), and latency = received − the event's createdAt (the start of its
//     transaction, so a little more than commit → received). Then every event
//     must have arrived.
//  4. Maximum rate: BENCH_BACKLOG events (default 10 000) with their deliveries
//     inserted in one transaction; the time from its commit until the receiver
//     has them all gives the sustained delivery rate.
//  5. Prints the figures and the target (p99 ≤ 500 ms at 200 events/s), stops the
//     instances and drops the database. Exits 1 if an event was lost.
//
// Settings: scripts/bench/settings.ts.
import postgres from 'postgres'
import { cpuSeconds, elapsed, sleep, type Server } from './processes.js'
import { benchLog, loadAverage, machineLine, percentile, ServiceInstances, SignedReceiver } from './service-instances.js'
import { eventWriter, seedEventBacklog } from './seed.js'
import { benchSettings } from './settings.js'

const settings = benchSettings('bench:webhooks')
const { BENCH_DB } = settings
const RATE = settings.BENCH_RATE
const DURATION_S = settings.BENCH_DURATION
const BACKLOG = settings.BENCH_BACKLOG
const INSTANCES = settings.BENCH_INSTANCES
const SHOPS = settings.BENCH_SHOPS
/** `store`: events appended by this process with the service's statement; `api`: buyers' purchases through the service. */
const SOURCE = settings.BENCH_SOURCE
const POOL_MAX = settings.DB_POOL_MAX
const TARGET_P99_MS = 500
/** Past this everything is torn down. */
const DEADLINE_MS = 240_000

const log = benchLog('bench:webhooks')

/** CPU seconds so far of the instances, and of their Postgres backends (Postgres must be local). */
async function cpuUsed (monitor: postgres.Sql): Promise<{ node: number, postgres: number }> {
  const backends = await monitor<Array<{ pid: number }>>`
    select pid from pg_stat_activity where datname = ${BENCH_DB} and application_name = 'shop-seller-api'`
  return {
    node: instances.reduce((sum, i) => sum + cpuSeconds(i.child.pid!), 0),
    postgres: backends.reduce((sum, b) => { try { return sum + cpuSeconds(b.pid) } catch { return sum } }, 0)
  }
}

// ---------------------------------------------------------------- the receiver

interface Arrival { receivedAt: number, createdAt: number }
const arrivals = new Map<string, Arrival>()

/** Each shop's endpoint is a path of its own (/s/<shop index>); a bad signature is counted, still answered 200. */
const receiver = new SignedReceiver((req, res, body) => {
  const receivedAt = Date.now()
  const id = String(req.headers['webhook-id'])
  if (!arrivals.has(id)) arrivals.set(id, { receivedAt, createdAt: Date.parse(JSON.parse(body).timestamp) })
  res.writeHead(200).end()
})

// ---------------------------------------------------------------- the service

const bench = ServiceInstances.fromSettings(settings, log, receiver.server)
const { instances, internalToken } = bench
const benchUrl = bench.url

interface Shop { shopId: string, productId: string, fieldId: string, eventData: unknown }

async function setUpShops (instance: Server, receiverPort: number): Promise<Shop[]> {
  const shops: Shop[] = []
  for (let i = 0; i < SHOPS; i++) {
    const { shopId, apiKey, product } = await bench.createShop(instance, i)
    const path = `/s/${i}`
    const { secret } = await bench.call(instance, 'POST', '/v1/webhook-endpoints', apiKey, { url: `http://127.0.0.1:${receiverPort}${path}` })
    receiver.accept(path, secret)
    // One real purchase gives the data of the events the store source records.
    const { order } = await bench.call(instance, 'POST', '/internal/v1/orders', internalToken, {
      productId: product.id, quantity: 1, fieldValues: [{ fieldId: product.fields[0].id, value: 'buyer@example.com' }]
    })
    shops.push({ shopId, productId: product.id, fieldId: product.fields[0].id, eventData: { order } })
  }
  return shops
}

// ---------------------------------------------------------------- the runs

interface SteadyResult { sent: number, failed: number, sourceP50: number, sourceP99: number, latencies: number[], lost: number }

/**
 * Makes one event: returns its webhook-id and commit time when known (`store`),
 * or just the order id (`api`, where the latency is taken from the event's createdAt).
 */
type EventSource = (n: number) => Promise<{ eventId?: string, committedAt?: number }>

/** The event's statement (shop row lock, event row, fan-out) and its hint after commit, as an order change makes them. */
function storeSource (writer: Awaited<ReturnType<typeof eventWriter>>, shops: Shop[]): EventSource {
  return (n) => writer.append(shops[n % shops.length].shopId, shops[n % shops.length].eventData)
}

/** A buyer's purchase through the operator API of an instance (each commits an order.paid event). */
function apiSource (shops: Shop[]): EventSource {
  return async (n) => {
    const shop = shops[n % shops.length]
    await bench.call(instances[n % instances.length], 'POST', '/internal/v1/orders', internalToken, {
      productId: shop.productId, quantity: 1, fieldValues: [{ fieldId: shop.fieldId, value: `buyer${n}@example.com` }]
    })
    return {}
  }
}

async function steadyLoad (source: EventSource): Promise<SteadyResult> {
  const total = Math.round(RATE * DURATION_S)
  const first = arrivals.size
  const committed = new Map<string, number>()
  const sourceLatencies: number[] = []
  let made = 0
  let failed = 0
  let inFlight = 0
  const pending: Array<Promise<void>> = []
  const emit = async (n: number) => {
    inFlight++
    const begun = performance.now()
    try {
      const { eventId, committedAt } = await source(n)
      sourceLatencies.push(performance.now() - begun)
      if (eventId !== undefined && committedAt !== undefined) committed.set(eventId, committedAt)
      made++
    } catch (err) {
      failed++
      if (failed <= 3) log(`making an event failed: ${(err as Error).message}`)
    } finally {
      inFlight--
    }
  }
  const begin = performance.now()
  let sent = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - begin) * RATE / 1000) + 1)
    while (sent < due) {
      if (inFlight > 1000) throw new Error(`events cannot be made at ${RATE}/s here (1 000 waiting)`)
      pending.push(emit(sent++))
    }
    await sleep(2)
  }
  await Promise.all(pending)
  log(`${elapsed()} ${sent} events made in ${((performance.now() - begin) / 1000).toFixed(1)} s; waiting for their webhooks`)

  // Every event must arrive (one endpoint per shop: one webhook per event).
  const until = Date.now() + 60_000
  while (arrivals.size - first < made && Date.now() < until) await sleep(100)
  sourceLatencies.sort((a, b) => a - b)
  const received = [...arrivals.entries()].slice(first)
  // Commit -> received when the commit time is known; else from the event's createdAt (its transaction's start).
  const latencies = received.map(([id, a]) => a.receivedAt - (committed.get(id) ?? a.createdAt)).sort((a, b) => a - b)
  return {
    sent,
    failed,
    sourceP50: percentile(sourceLatencies, 0.5),
    sourceP99: percentile(sourceLatencies, 0.99),
    latencies,
    lost: made - received.length
  }
}

interface BacklogResult { events: number, seconds: number, rate: number, lost: number }

async function backlogDrain (sql: postgres.Sql): Promise<BacklogResult> {
  const perShop = Math.ceil(BACKLOG / SHOPS)
  const before = arrivals.size
  const [template] = await sql<Array<{ data: unknown }>>`select data from events where type = 'order.paid' limit 1`
  const committed = await seedEventBacklog(benchUrl, perShop, template.data)
  const events = perShop * SHOPS
  const until = committed + 120_000
  while (arrivals.size - before < events && Date.now() < until) await sleep(50)
  const last = Math.max(...[...arrivals.values()].map((a) => a.receivedAt))
  const seconds = (last - committed) / 1000
  return { events, seconds, rate: (arrivals.size - before) / seconds, lost: events - (arrivals.size - before) }
}

// ---------------------------------------------------------------- main

async function main () {
  const receiverPort = await bench.start(INSTANCES)
  const monitor = bench.monitor!
  const shops = await setUpShops(instances[0], receiverPort)
  log(`${elapsed()} ${INSTANCES} instance(s) up, ${SHOPS} shops with an endpoint each; load average ${loadAverage()}`)

  // The setup's own webhooks (one purchase per shop) arrive first.
  while (arrivals.size < SHOPS) await sleep(50)
  const writer = await eventWriter(benchUrl, 16)
  const loadBefore = loadAverage()
  const cpuStart = await cpuUsed(monitor)
  const steady = await steadyLoad(SOURCE === 'api' ? apiSource(shops) : storeSource(writer, shops)).finally(() => writer.close())
  const cpuSteady = await cpuUsed(monitor)
  const loadSteady = loadAverage()
  log(`${elapsed()} steady load done; filling a backlog of ${BACKLOG}`)
  const sql = postgres(benchUrl, { max: 1, onnotice: () => {} })
  const cpuBeforeBacklog = await cpuUsed(monitor)
  const backlog = await backlogDrain(sql).finally(() => sql.end({ timeout: 2 }))
  const cpuBacklog = await cpuUsed(monitor)
  const loadAfter = loadAverage()
  await bench.cleanup()

  const ms = (value: number) => `${Math.round(value)} ms`
  const perEvent = (from: { node: number, postgres: number }, to: { node: number, postgres: number }, events: number) =>
    `node ${((to.node - from.node) * 1000 / events).toFixed(2)} + Postgres ${((to.postgres - from.postgres) * 1000 / events).toFixed(2)} ms CPU per event`
  const p99 = percentile(steady.latencies, 0.99)
  const lines = [
    '',
    `Webhooks: ${INSTANCES} instance(s), ${SHOPS} shops with one endpoint each, receiver on 127.0.0.1 answering 200 at once, DB_POOL_MAX=${POOL_MAX}, default WEBHOOK_* settings`,
    machineLine({ before: loadBefore, steady: loadSteady, backlog: loadAfter }),
    '',
    `Steady ${RATE} events/s for ${DURATION_S} s from ${SOURCE === 'api' ? 'purchases through the API' : 'the event store (the service\'s event statement)'}: ` +
      `${steady.sent} events (${steady.failed} failed; making one: p50 ${ms(steady.sourceP50)}, p99 ${ms(steady.sourceP99)})`,
    `  ${SOURCE === 'api' ? 'event createdAt' : 'commit'} -> received: p50 ${ms(percentile(steady.latencies, 0.5))}, p90 ${ms(percentile(steady.latencies, 0.9))}, p99 ${ms(p99)}, max ${ms(steady.latencies.at(-1) ?? NaN)}`,
    `  lost: ${steady.lost}; bad signatures: ${receiver.badSignatures}; service ${perEvent(cpuStart, cpuSteady, steady.sent)}${SOURCE === 'api' ? ' (purchase + delivery)' : ' (delivery alone: the recording runs in this process)'}`,
    `Backlog of ${backlog.events} events: all delivered in ${backlog.seconds.toFixed(1)} s = ${Math.round(backlog.rate)} deliveries/s (lost: ${backlog.lost}); ${perEvent(cpuBeforeBacklog, cpuBacklog, backlog.events)} (delivery alone)`,
    '',
    `Target: p99 <= ${TARGET_P99_MS} ms at 200 events/s: ${p99 <= TARGET_P99_MS ? 'pass' : 'MISS'}`
  ]
  process.stdout.write(lines.join('\n') + '\n')
  if (steady.lost > 0 || backlog.lost > 0 || receiver.badSignatures > 0) throw new Error('events were lost or badly signed')
}

bench.run(DEADLINE_MS, main)
