// `npm run bench:delivery`: how fast purchases are delivered by the shops'
// delivery endpoints (docs/delivery-endpoint.md). See
// docs/performance/delivery-endpoint.md.
//
//  1. A dedicated database (BENCH_DB, default seller_api_bench_delivery; dropped
//     and recreated) is migrated; the service is built and BENCH_INSTANCES
//     instances (`node dist/server.js`, default 2) start on it with Redis, allowed
//     to ask 127.0.0.1 (scripts/bench/service-instances.ts, shared with
//     bench:webhooks).
//  2. A receiver in this process checks every signature (HMAC with node:crypto)
//     and answers `{"values": [...]}` after BENCH_ANSWER_MS (default 20 ms).
//     BENCH_SHOPS shops (default 20) each get a product with `autoDelivery:
//     endpoint` and a delivery endpoint pointing at the receiver.
//  3. Steady load: BENCH_RATE purchases per second (default 100) for
//     BENCH_DURATION seconds (default 20), open loop, through the operator API
//     spread over the instances. Purchase → delivered = the order's deliveredAt −
//     its createdAt (both stamped by Postgres: the purchase's and the delivery's
//     transactions). Every order must end delivered.
//  4. Attempts an instance sustains: all instances but one stop; BENCH_BACKLOG
//     paid orders (default 5 000) with their requests are inserted in one
//     transaction; the time until the last is delivered gives the rate.
//  5. Prints the figures and the target (p99 ≤ 250 ms at 100 purchases/s on two
//     instances), stops the instances and drops the database.
//
// Settings: scripts/bench/settings.ts.
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { elapsed, sleep, stopServer, type Server } from './processes.js'
import { benchLog, loadAverage, machineLine, percentile, ServiceInstances, SignedReceiver } from './service-instances.js'
import { seedDeliveryBacklog } from './seed.js'
import { benchSettings } from './settings.js'

const settings = benchSettings('bench:delivery')
const RATE = settings.BENCH_RATE
const DURATION_S = settings.BENCH_DURATION
const BACKLOG = settings.BENCH_BACKLOG
const INSTANCES = settings.BENCH_INSTANCES
const SHOPS = settings.BENCH_SHOPS
const ANSWER_MS = settings.BENCH_ANSWER_MS
const POOL_MAX = settings.DB_POOL_MAX
const TARGET_P99_MS = 250
const DEADLINE_MS = 240_000

const log = benchLog('bench:delivery')

// ---------------------------------------------------------------- the receiver

let requests = 0

const receiver = new SignedReceiver((_req, res, body, signed) => {
  requests++
  if (!signed) {
    res.writeHead(401).end()
    return
  }
  const { quantity } = JSON.parse(body).data.order as { quantity: number }
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ values: Array.from({ length: quantity }, () => randomBytes(8).toString('hex')) }))
  }, ANSWER_MS)
})

// ---------------------------------------------------------------- the service

const bench = ServiceInstances.fromSettings(settings, log, receiver.server)
const { instances, internalToken } = bench

interface Shop { productId: string, fieldId: string }

async function setUpShops (instance: Server, receiverPort: number): Promise<Shop[]> {
  const shops: Shop[] = []
  for (let i = 0; i < SHOPS; i++) {
    const { apiKey, product } = await bench.createShop(instance, i)
    await bench.call(instance, 'PATCH', `/v1/products/${product.id}/stock`, apiKey, { autoDelivery: 'endpoint' })
    const path = `/s/${i}`
    const { secret } = await bench.call(instance, 'PUT', '/v1/delivery-endpoint', apiKey, { url: `http://127.0.0.1:${receiverPort}${path}` })
    receiver.accept(path, secret)
    shops.push({ productId: product.id, fieldId: product.fields[0].id })
  }
  return shops
}

// ---------------------------------------------------------------- the runs

async function steadyLoad (sql: postgres.Sql, shops: Shop[]) {
  const total = Math.round(RATE * DURATION_S)
  const orderIds: string[] = []
  let failed = 0
  const pending: Array<Promise<void>> = []
  const purchase = async (n: number) => {
    const shop = shops[n % shops.length]
    try {
      const { order } = await bench.call(instances[n % instances.length], 'POST', '/internal/v1/orders', internalToken, {
        productId: shop.productId, quantity: 1, fieldValues: [{ fieldId: shop.fieldId, value: `buyer${n}@example.com` }]
      })
      orderIds.push(order.id)
    } catch (err) {
      if (++failed <= 3) log(`a purchase failed: ${(err as Error).message}`)
    }
  }
  const begin = performance.now()
  let sent = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - begin) * RATE / 1000) + 1)
    while (sent < due) pending.push(purchase(sent++))
    await sleep(2)
  }
  await Promise.all(pending)
  log(`${elapsed()} ${sent} purchases in ${((performance.now() - begin) / 1000).toFixed(1)} s; waiting for their deliveries`)
  const until = Date.now() + 60_000
  let rows: Array<{ ms: number | null }> = []
  while (Date.now() < until) {
    rows = await sql<Array<{ ms: number | null }>>`select (extract(epoch from delivered_at - created_at) * 1000)::float8 as ms
      from orders where id in ${sql(orderIds)}`
    if (rows.every((r) => r.ms !== null)) break
    await sleep(200)
  }
  const latencies = rows.filter((r) => r.ms !== null).map((r) => r.ms!).sort((a, b) => a - b)
  return { sent, failed, latencies, undelivered: orderIds.length - latencies.length }
}

async function backlogDrain (sql: postgres.Sql) {
  const perShop = Math.ceil(BACKLOG / SHOPS)
  const committed = await seedDeliveryBacklog(bench.url, perShop)
  const orders = perShop * SHOPS
  const until = committed + 150_000
  let left = orders
  while (left > 0 && Date.now() < until) {
    const [row] = await sql<Array<{ left: number }>>`select count(*)::int as left from webhook_deliveries where kind = 'delivery_request' and status = 'pending'`
    left = row.left
    if (left > 0) await sleep(100)
  }
  const seconds = (Date.now() - committed) / 1000
  return { orders, seconds, rate: (orders - left) / seconds, left }
}

// ---------------------------------------------------------------- main

async function main () {
  const receiverPort = await bench.start(INSTANCES)
  const shops = await setUpShops(instances[0], receiverPort)
  log(`${elapsed()} ${INSTANCES} instance(s) up, ${SHOPS} shops with a delivery endpoint each; load average ${loadAverage()}`)

  const sql = postgres(bench.url, { max: 2, onnotice: () => {} })
  try {
    const loadBefore = loadAverage()
    const steady = await steadyLoad(sql, shops)
    const loadSteady = loadAverage()
    // One instance alone for the sustained rate.
    for (const instance of instances.slice(1)) await stopServer(instance)
    log(`${elapsed()} steady load done; a backlog of ${BACKLOG} for one instance`)
    const backlog = await backlogDrain(sql)
    const loadAfter = loadAverage()

    const ms = (value: number) => `${Math.round(value)} ms`
    const p99 = percentile(steady.latencies, 0.99)
    const lines = [
      '',
      `Delivery endpoint: ${INSTANCES} instance(s), ${SHOPS} shops with one delivery endpoint each, receiver on 127.0.0.1 answering after ${ANSWER_MS} ms, DB_POOL_MAX=${POOL_MAX}, default WEBHOOK_* / DELIVERY_* settings`,
      machineLine({ before: loadBefore, steady: loadSteady, backlog: loadAfter }),
      '',
      `Steady ${RATE} purchases/s for ${DURATION_S} s through the API: ${steady.sent} purchases (${steady.failed} failed)`,
      `  purchase -> delivered (createdAt -> deliveredAt): p50 ${ms(percentile(steady.latencies, 0.5))}, p90 ${ms(percentile(steady.latencies, 0.9))}, p99 ${ms(p99)}, max ${ms(steady.latencies.at(-1) ?? NaN)}`,
      `  undelivered: ${steady.undelivered}; requests received ${requests}; bad signatures: ${receiver.badSignatures}`,
      `Backlog of ${backlog.orders} requests, one instance: ${backlog.orders - backlog.left} delivered in ${backlog.seconds.toFixed(1)} s = ${Math.round(backlog.rate)} attempts/s (left: ${backlog.left})`,
      '',
      `Target: p99 <= ${TARGET_P99_MS} ms at 100 purchases/s on two instances: ${p99 <= TARGET_P99_MS ? 'pass' : 'MISS'}`
    ]
    process.stdout.write(lines.join('\n') + '\n')
    if (steady.undelivered > 0 || backlog.left > 0 || receiver.badSignatures > 0) throw new Error('orders were left undelivered or requests badly signed')
  } finally {
    await sql.end({ timeout: 2 })
    await bench.cleanup()
  }
}

bench.run(DEADLINE_MS, main)
