// `npm run bench:delivery`: how fast purchases are delivered by the shops'
// delivery endpoints (docs/delivery-endpoint.md). See docs/performance.md
// ("Delivery endpoint").
//
//  1. A dedicated database (BENCH_DB, default seller_api_bench_delivery; dropped
//     and recreated) is migrated; the service is built and BENCH_INSTANCES
//     instances (`node dist/server.js`, default 2) start on it with Redis, allowed
//     to ask 127.0.0.1.
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
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer as createHttpServer } from 'node:http'
import os from 'node:os'
import postgres from 'postgres'
import { openDatabase } from '../db/client.js'
import { orderJson } from '../db/order-row.js'
import { isoTime } from '../db/sql-time.js'
import { seedTaxonomy } from '../db/taxonomy.js'
import { freePort, run, sleep, startServer, stopAllServers, stopServer, waitReady, type Server } from './bench/processes.js'

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
const BENCH_DB = process.env.BENCH_DB || 'seller_api_bench_delivery'
const RATE = Number(process.env.BENCH_RATE || 100)
const DURATION_S = Number(process.env.BENCH_DURATION || 20)
const BACKLOG = Number(process.env.BENCH_BACKLOG || 5000)
const INSTANCES = Number(process.env.BENCH_INSTANCES || 2)
const SHOPS = Number(process.env.BENCH_SHOPS || 20)
const ANSWER_MS = Number(process.env.BENCH_ANSWER_MS || 20)
const POOL_MAX = Number(process.env.DB_POOL_MAX || 10)
const TARGET_P99_MS = 250
const DEADLINE_MS = 240_000

const benchUrl = (() => { const u = new URL(DATABASE_URL); u.pathname = `/${BENCH_DB}`; return u.toString() })()
const internalToken = randomBytes(24).toString('hex')
const log = (message: string) => process.stderr.write(`[bench:delivery] ${message}\n`)
const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')
const percentile = (sorted: number[], p: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]

// ---------------------------------------------------------------- the receiver

const secrets = new Map<string, Buffer>()
let badSignatures = 0
let requests = 0

function signatureValid (key: Buffer, headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest()
  return String(headers['webhook-signature']).split(' ').some((entry) => {
    const given = Buffer.from(entry.slice(3), 'base64')
    return entry.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

const receiver = createHttpServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    requests++
    const body = Buffer.concat(chunks).toString()
    const key = secrets.get(req.url ?? '')
    if (!key || !signatureValid(key, req.headers, body)) {
      badSignatures++
      res.writeHead(401).end()
      return
    }
    const { quantity } = JSON.parse(body).data.order as { quantity: number }
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ values: Array.from({ length: quantity }, () => randomBytes(8).toString('hex')) }))
    }, ANSWER_MS)
  })
})

// ---------------------------------------------------------------- the service

const instances: Server[] = []

function startInstance (port: number): Server {
  const instance = startServer(`instance ${instances.length + 1}`, ['dist/server.js'], {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: benchUrl,
    REDIS_URL,
    REDIS_PREFIX: `${BENCH_DB}:`,
    INTERNAL_TOKEN: internalToken,
    DB_POOL_MAX: String(POOL_MAX),
    RATE_LIMIT_MAX: '1000000000',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true'
  }, port, 'shop-seller-api')
  instances.push(instance)
  return instance
}

async function call (instance: Server, method: string, path: string, auth: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${instance.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json = await res.json() as { data: any }
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json.data
}

interface Shop { productId: string, fieldId: string }

async function setUpShops (instance: Server, receiverPort: number): Promise<Shop[]> {
  const shops: Shop[] = []
  for (let i = 0; i < SHOPS; i++) {
    const { shop } = await call(instance, 'POST', '/internal/v1/shops', internalToken, { name: `Bench shop ${i}` })
    const { secret: apiKey } = await call(instance, 'POST', `/internal/v1/shops/${shop.id}/api-keys`, internalToken, { name: 'bench' })
    const { categories } = await call(instance, 'GET', '/v1/categories', apiKey)
    const { product } = await call(instance, 'POST', '/v1/products', apiKey, {
      categoryId: categories[0].id,
      title: `Steam key ${i}`,
      description: 'Global key.',
      isActive: true,
      external: true,
      currencyRateId: '',
      price: 499.9,
      imageId: '',
      employeeReward: { type: 'percent', value: 0 },
      fields: [{ type: 'text', label: 'Email', required: true, multiple: false, options: [] }],
      filters: []
    })
    await call(instance, 'PATCH', `/v1/products/${product.id}/stock`, apiKey, { autoDelivery: 'endpoint' })
    const path = `/s/${i}`
    const { secret } = await call(instance, 'PUT', '/v1/delivery-endpoint', apiKey, { url: `http://127.0.0.1:${receiverPort}${path}` })
    secrets.set(path, Buffer.from(secret.slice('whsec_'.length), 'base64'))
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
      const { order } = await call(instances[n % instances.length], 'POST', '/internal/v1/orders', internalToken, {
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
  await sql.begin((tx) => tx.unsafe(`with o as (
      insert into orders (shop_id, product_id, product_title, quantity, amount, field_values)
      select p.shop_id, p.id, p.title, 1, p.price, '[]'::jsonb from products p cross join generate_series(1, ${perShop})
      where p.auto_delivery = 'endpoint'
      returning *
    )
    insert into webhook_deliveries (id, endpoint_id, webhook_id, event_type, kind, order_id, payload, next_attempt_at, updated_at)
    select g.id, de.id, g.id, 'order.delivery_requested', 'delivery_request', o.id,
      jsonb_build_object('timestamp', ${isoTime('now()')}, 'data', jsonb_build_object('order', ${orderJson('o')}, 'test', false)), now(), now()
    from o join webhook_endpoints de on de.shop_id = o.shop_id and de.purpose = 'delivery'
      cross join lateral (select gen_random_uuid() as id, o.id as order_id) g`))
  const committed = Date.now()
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

let monitor: postgres.Sql | undefined
let ownDatabase = false
let cleaning: Promise<void> | null = null
function cleanup (): Promise<void> {
  cleaning ??= (async () => {
    await stopAllServers()
    receiver.close()
    if (ownDatabase && process.env.BENCH_KEEP_DB !== '1') {
      try { await monitor?.unsafe(`drop database if exists "${BENCH_DB}" with (force)`) } catch (err) { log(`could not drop ${BENCH_DB}: ${(err as Error).message}`) }
    }
    await monitor?.end({ timeout: 2 })
  })()
  return cleaning
}

async function main () {
  const deadline = setTimeout(() => {
    log(`over the ${DEADLINE_MS / 1000} s budget: stopping`)
    cleanup().finally(() => process.exit(2))
  }, DEADLINE_MS)
  deadline.unref()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { cleanup().finally(() => process.exit(130)) })

  monitor = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  const [{ locked }] = await monitor<Array<{ locked: boolean }>>`select pg_try_advisory_lock(7311, hashtext(${BENCH_DB})) as locked`
  if (!locked) throw new Error(`another bench is using ${BENCH_DB} right now; wait for it (or set BENCH_DB)`)
  ownDatabase = true
  await monitor.unsafe(`drop database if exists "${BENCH_DB}" with (force)`)
  await monitor.unsafe(`create database "${BENCH_DB}"`)

  log(`building the service and migrating ${BENCH_DB}`)
  await Promise.all([
    (async () => {
      const database = await openDatabase({ url: benchUrl, poolMax: 2 })
      try {
        await database.migrate()
        await seedTaxonomy(database.db)
      } finally {
        await database.close()
      }
    })(),
    run('npm', ['run', 'build'])
  ])

  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const receiverPort = (receiver.address() as { port: number }).port
  for (let i = 0; i < INSTANCES; i++) startInstance(await freePort())
  await Promise.all(instances.map((instance) => waitReady(instance)))
  const shops = await setUpShops(instances[0], receiverPort)
  log(`${elapsed()} ${INSTANCES} instance(s) up, ${SHOPS} shops with a delivery endpoint each; load average ${loadAverage()}`)

  const sql = postgres(benchUrl, { max: 2, onnotice: () => {} })
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
      `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; load average before ${loadBefore}, after the steady run ${loadSteady}, after the backlog ${loadAfter}`,
      '',
      `Steady ${RATE} purchases/s for ${DURATION_S} s through the API: ${steady.sent} purchases (${steady.failed} failed)`,
      `  purchase -> delivered (createdAt -> deliveredAt): p50 ${ms(percentile(steady.latencies, 0.5))}, p90 ${ms(percentile(steady.latencies, 0.9))}, p99 ${ms(p99)}, max ${ms(steady.latencies.at(-1) ?? NaN)}`,
      `  undelivered: ${steady.undelivered}; requests received ${requests}; bad signatures: ${badSignatures}`,
      `Backlog of ${backlog.orders} requests, one instance: ${backlog.orders - backlog.left} delivered in ${backlog.seconds.toFixed(1)} s = ${Math.round(backlog.rate)} attempts/s (left: ${backlog.left})`,
      '',
      `Target: p99 <= ${TARGET_P99_MS} ms at 100 purchases/s on two instances: ${p99 <= TARGET_P99_MS ? 'pass' : 'MISS'}`
    ]
    process.stdout.write(lines.join('\n') + '\n')
    if (steady.undelivered > 0 || backlog.left > 0 || badSignatures > 0) throw new Error('orders were left undelivered or requests badly signed')
  } finally {
    await sql.end({ timeout: 2 })
    await cleanup()
  }
}

main().then(() => process.exit(0), async (err) => {
  log(`FAILED: ${err instanceof Error ? err.message : String(err)}`)
  await cleanup()
  process.exit(1)
})
