// `npm run bench:capacity`: what one operation costs Postgres and Redis, for
// docs/capacity.md. Starts a Postgres cluster of its own (initdb / pg_ctl from
// /usr/lib/postgresql/*/bin, with pg_stat_statements) and a Redis of its own,
// each on a free port under a temporary directory, so the counts are the
// service's alone; starts one service instance (`tsx server.ts`) on them and
// drives it over HTTP as its clients do; and
// for each operation resets the statistics, runs it BENCH_OPS times
// (scripts/bench/settings.ts) and reads statements, rows, WAL bytes and execution
// time (pg_stat_statements) and commands (Redis INFO commandstats) per operation. Also the connections an
// instance opens, idle and busy. Everything is removed at the end.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { randomBytes } from 'node:crypto'
import { call, freePort, killAllServers, productBody, sleep, startServer, startService, stopAllServers, transpiled, waitReady } from './processes.js'
import { benchSettings } from './settings.js'

const OPS = benchSettings('bench:capacity').BENCH_OPS
const TOKEN = 'capacity-internal-token-0123456789'
const stockKey = randomBytes(32).toString('base64')
const pgBin = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin')
const dir = mkdtempSync(join(tmpdir(), 'seller-api-capacity-'))
const asPostgres = process.getuid?.() === 0 ? ['-u', 'postgres'] : null
/** initdb and pg_ctl refuse to run as root: as the postgres user then. */
function pgCommand (tool: string, args: string[]) {
  if (asPostgres) return execFileSync('runuser', [...asPostgres, '--', join(pgBin, tool), ...args], { stdio: 'pipe' })
  return execFileSync(join(pgBin, tool), args, { stdio: 'pipe' })
}

async function startPostgres (port: number) {
  const data = join(dir, 'pg')
  if (asPostgres) execFileSync('chown', ['postgres', dir])
  pgCommand('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'])
  pgCommand('pg_ctl', ['-D', data, '-l', join(dir, 'pg.log'), '-w', '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all -c max_connections=100`, 'start'])
  return () => pgCommand('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
}

async function startRedis (port: number) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const redis = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  for (let i = 0; ; i++) {
    try { await redis.connect(); break } catch { if (i > 50) throw new Error('redis did not start'); await sleep(100) }
  }
  return { redis, stop: () => { redis.disconnect(); child.kill() } }
}

/** What stops the Postgres and the Redis this run started. */
const stops: Array<() => void> = []

interface Cost { op: string, roundTrips: number, statements: number, rows: number, walBytes: number, execMs: number, redis: number, top: string }

async function main () {
  const [pgPort, redisPort] = [await freePort(), await freePort()]
  const stopPostgres = await startPostgres(pgPort)
  stops.push(stopPostgres)
  const { redis, stop: stopRedis } = await startRedis(redisPort)
  stops.push(stopRedis)
  const url = `postgres://postgres@127.0.0.1:${pgPort}/postgres`
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  await sql`create extension if not exists pg_stat_statements`
  const receiver = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1')
  const metricsPort = await freePort()
  const service = await startService('service', {
    DATABASE_URL: url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    INTERNAL_TOKEN: TOKEN,
    METRICS_PORT: String(metricsPort),
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Counted, never shed.
    PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0',
    VALUES_ENCRYPTION_KEY: stockKey
  }, { fromSource: true })
  // The bare baseline of `npm run bench` (scripts/bench/baseline.ts), for the stock purchase's counts beside the service's.
  const baselinePort = await freePort()
  const baseline = startServer('baseline', ['--input-type=module', '--eval', transpiled('baseline.ts')], {
    PORT: String(baselinePort), DATABASE_URL: url, DB_POOL_MAX: '10', INTERNAL_TOKEN: TOKEN, VALUES_ENCRYPTION_KEY: stockKey
  }, baselinePort, 'seller-api-bench-baseline')
  await Promise.all([waitReady(service), waitReady(baseline)])
  /** Requests the service holds right now (its metrics). */
  const inFlight = async () => Number(/^http_requests_in_flight (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())?.[1])
  const inject = (method: string, url: string, token: string, payload?: object, headers?: Record<string, string>) =>
    call(service, method, url, token, payload, headers)
  async function newShop (name: string) {
    const { shop } = await inject('POST', '/internal/v1/shops', TOKEN, { name })
    const { secret: key } = await inject('POST', `/internal/v1/shops/${shop.id}/api-keys`, TOKEN, { name: 'capacity' })
    const { categories } = await inject('GET', '/v1/categories', key)
    const { product } = await inject('POST', '/v1/products', key, productBody(categories[0].id, 'Steam key'))
    const buy = () => inject('POST', '/internal/v1/orders', TOKEN, { productId: product.id, quantity: 1, fieldValues: [{ fieldId: product.fields[0].id, value: 'b@example.com' }] })
    return { shopId: shop.id as string, productId: product.id as string, key: key as string, buy }
  }

  const costs: Cost[] = []
  async function measure (op: string, run: (i: number) => Promise<unknown>, count = OPS) {
    await sleep(300)
    await sql`select pg_stat_statements_reset()`
    await redis.config('RESETSTAT')
    for (let i = 0; i < count; i++) await run(i)
    await sleep(300)
    // Nested statements (triggers, foreign-key checks) count too; `toplevel` ones are the round trips.
    const rows = await sql<Array<{ calls: string, rows: string, wal: string, ms: number, query: string, toplevel: boolean }>>`
      select calls, rows, wal_bytes::text as wal, total_exec_time as ms, query, toplevel from pg_stat_statements
      where query not like '%pg_stat_statements%' and query not like '%count(*)::int as n%'
        and dbid = (select oid from pg_database where datname = current_database())`
    const stats = await redis.info('commandstats')
    const redisCalls = [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].filter(([, name]) => name !== 'config' && name !== 'info').reduce((n, [, , calls]) => n + Number(calls), 0)
    const sum = (f: (r: typeof rows[number]) => number) => rows.reduce((n, r) => n + f(r), 0) / count
    const top = [...rows].sort((a, b) => Number(b.calls) - Number(a.calls)).slice(0, 4).map((r) => `${(Number(r.calls) / count).toFixed(2)}× ${r.query.replace(/\s+/g, ' ').slice(0, 60)}`).join(' | ')
    const cost = { op, roundTrips: sum((r) => r.toplevel ? Number(r.calls) : 0), statements: sum((r) => Number(r.calls)), rows: sum((r) => Number(r.rows)), walBytes: sum((r) => Number(r.wal)), execMs: sum((r) => r.ms), redis: redisCalls / count, top }
    costs.push(cost)
    console.log(`${op}: ${cost.roundTrips.toFixed(2)} top-level / ${cost.statements.toFixed(2)} statements, ${cost.rows.toFixed(1)} rows, ${cost.walBytes.toFixed(0)} WAL bytes, ${cost.execMs.toFixed(3)} ms, ${cost.redis.toFixed(2)} Redis commands\n   ${top}`)
  }

  const connections = async () => (await sql<Array<{ n: number }>>`select count(*)::int as n from pg_stat_activity where application_name = 'shop-seller-api' or (backend_type = 'client backend' and pid <> pg_backend_pid() and datname = current_database())`)[0].n
  const idleConnections = await connections()

  const plain = await newShop('Plain')
  const paidOrders: string[] = []
  await measure('idle instance, per second', () => sleep(1000), 5)
  await measure('purchase (POST /internal/v1/orders), no webhook endpoint', async () => paidOrders.push((await plain.buy()).order.id))
  await measure('take (keyed)', (i) => inject('POST', `/v1/orders/${paidOrders[i]}/take`, plain.key, undefined, { 'idempotency-key': `take-${i}` }))
  await measure('take replayed (same key)', (i) => inject('POST', `/v1/orders/${paidOrders[i]}/take`, plain.key, undefined, { 'idempotency-key': `take-${i}` }))
  await measure('deliver (keyed)', (i) => inject('POST', `/v1/orders/${paidOrders[i]}/deliver`, plain.key, { value: `code-${i}` }, { 'idempotency-key': `deliver-${i}` }))
  await measure('chat message (keyed)', (i) => inject('POST', `/v1/orders/${paidOrders[i]}/messages`, plain.key, { text: 'Thanks!' }, { 'idempotency-key': `message-${i}` }))
  await measure('list orders (GET /v1/orders?limit=20)', () => inject('GET', '/v1/orders?limit=20', plain.key))
  await measure('one order (GET /v1/orders/:id)', (i) => inject('GET', `/v1/orders/${paidOrders[i]}`, plain.key))
  await measure('feed page (GET /v1/events, 50 events)', () => inject('GET', '/v1/events?limit=50', plain.key))

  // Long polls: 5 held on one shop, one purchase wakes them; minus the purchase alone.
  const polled = await newShop('Polled')
  let cursor = (await inject('GET', '/v1/events?after=latest', polled.key)).nextCursor
  await measure('purchase + wake-up of 5 held long polls of the shop', async () => {
    const held = Array.from({ length: 5 }, () => inject('GET', `/v1/events?after=${cursor}&wait=10`, polled.key))
    while (await inFlight() < 5) await sleep(2)
    await polled.buy()
    cursor = (await Promise.all(held))[0].nextCursor
  }, 100)

  // Webhooks: one endpoint, each purchase delivered once to a local receiver.
  const hooked = await newShop('Hooked')
  await inject('POST', '/v1/webhook-endpoints', hooked.key, { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks` })
  await measure('purchase + its webhook delivered (1 endpoint)', async () => {
    await hooked.buy()
    for (;;) {
      const [{ n }] = await sql<Array<{ n: number }>>`select count(*)::int as n from webhook_deliveries where status = 'pending'`
      if (n === 0) break
      await sleep(5)
    }
  }, 100)

  // Purchases delivered from stock (items uploaded through the API), on the service and on the bare baseline.
  const stockShop = async (name: string, items = OPS + 10) => {
    const shop = await newShop(name)
    await inject('PATCH', `/v1/products/${shop.productId}/stock`, shop.key, { autoDelivery: 'stock' })
    const values = Array.from({ length: items }, (_, i) => `CODE-${i}-${randomBytes(6).toString('hex')}`)
    await inject('POST', `/v1/products/${shop.productId}/stock/items`, shop.key, { values })
    return shop
  }
  const stocked = await stockShop('Stocked')
  await measure('purchase delivered from stock', async () => {
    const { order } = await stocked.buy()
    if (order.status !== 'awaiting_confirmation') throw new Error('not delivered from stock')
  })
  const bare = await stockShop('Bare')
  await measure('purchase delivered from stock, bare baseline (scripts/bench/baseline.ts)', () =>
    call(baseline, 'POST', '/internal/v1/orders', TOKEN, { productId: bare.productId, quantity: 1, fieldValues: [] }))

  // Claims on purchases delivered from stock: the buyer's (operator API), then the seller's replacement from stock.
  const claimShop = await stockShop('Claims', 2 * OPS + 10)
  const claimed: string[] = []
  for (let i = 0; i < OPS; i++) claimed.push((await claimShop.buy()).order.id as string)
  const claims: string[] = []
  await measure('claim opened (POST /internal/v1/orders/{id}/claims)', async (i) => {
    const { claim } = await inject('POST', `/internal/v1/orders/${claimed[i]}/claims`, TOKEN,
      { reason: 'not_working', text: 'The key does not activate.' })
    claims.push(claim.id)
  })
  await measure('claim replaced from stock (POST /v1/claims/{id}/replace)', (i) =>
    inject('POST', `/v1/claims/${claims[i]}/replace`, claimShop.key))

  // Connections under a burst of 50 concurrent requests.
  await Promise.all(Array.from({ length: 50 }, () => inject('GET', '/v1/orders?limit=20', plain.key)))
  const busy = await Promise.all([connections(), Promise.all(Array.from({ length: 50 }, () => inject('GET', '/v1/orders?limit=20', plain.key)))]).then(([n]) => n)
  const redisClients = Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))![1]) - 1
  console.log(`\nconnections: Postgres ${idleConnections} idle, ${busy} under 50 concurrent requests (DB_POOL_MAX=10); Redis ${redisClients}`)
  console.log('\n| operation | statements sent | statements with nested | rows | WAL bytes | Postgres exec ms | Redis commands |\n|---|--:|--:|--:|--:|--:|--:|')
  for (const c of costs) console.log(`| ${c.op} | ${c.roundTrips.toFixed(2)} | ${c.statements.toFixed(2)} | ${c.rows.toFixed(1)} | ${c.walBytes.toFixed(0)} | ${c.execMs.toFixed(3)} | ${c.redis.toFixed(2)} |`)

  await stopAllServers()
  receiver.close()
  await sql.end()
  for (const stop of stops.splice(0).reverse()) stop()
  rmSync(dir, { recursive: true, force: true })
}

main().catch((err) => {
  console.error(err)
  killAllServers()
  for (const stop of stops.reverse()) { try { stop() } catch { /* already stopped */ } }
  rmSync(dir, { recursive: true, force: true })
  process.exit(1)
})
