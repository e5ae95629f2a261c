// `npm run bench:stats`: GET /v1/stats/sales (docs/sales-stats.md) against shops
// with a long history, through HTTP. Targets
// (docs/performance/sales-stats.md): p99 ≤ 150 ms for a year of a shop with 1 000 000 orders grouped by
// day and by product; a 30-day range no slower than 1.5× the same range of a shop
// with 10 000 orders.
//
// Three shops of 20 products each, their orders and ledger rows generated in SQL
// (a purchase through the API would take hours for a million):
//   small   — 10 000 orders spread over the last year;
//   large   — 1 000 000 orders spread over the last year;
//   history — the small shop's year again, and 990 000 orders in the year before it
//             (1 000 000 over two years: what it sold long ago must not matter).
// 85% of the orders are completed (credited an hour after purchase), 10% cancelled
// (refunded 30 minutes after), 5% still paid. Requests are sent one at a time
// (latency, not throughput) to the service (`tsx server.ts`), after a warm-up.
//
// Settings (scripts/bench/settings.ts): DATABASE_URL (the server the bench database
// is created on), BENCH_DB, BENCH_KEEP_DB, BENCH_OPS (requests per measurement).
import os from 'node:os'
import postgres from 'postgres'
import { startService, stopAllServers, waitReady } from './processes.js'
import { createDatabase, databaseUrl, dropDatabase, fillSalesRollup, salesStatsSql } from './seed.js'
import { benchSettings } from './settings.js'

const { DATABASE_URL, BENCH_DB, BENCH_KEEP_DB, BENCH_OPS: SAMPLES } = benchSettings('bench:stats')
const TOKEN = 'sales-stats-bench-internal-token'
const PRODUCTS_PER_SHOP = 20
const TZ = 'Europe/Moscow'
const TARGET_P99_MS = 150
const TARGET_FLATNESS = 1.5

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')
const emailField = { type: 'text', label: 'Email', required: true, multiple: false, options: [] }
const started = Date.now()
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`)

log(`load average at start: ${loadAverage()} (${os.cpus().length} cores)`)
await createDatabase(DATABASE_URL, BENCH_DB)
const service = await startService('service', { DATABASE_URL: databaseUrl(DATABASE_URL, BENCH_DB), INTERNAL_TOKEN: TOKEN, DB_POOL_MAX: '4' }, { fromSource: true })
await waitReady(service)
const base = `http://127.0.0.1:${service.port}`
const operator = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }

async function post (path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(base + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()).data
}

interface Shop { name: string, id: string, headers: Record<string, string>, products: string[] }

/** A shop, its key and its products, through the operator and seller APIs. */
async function createShop (name: string): Promise<Shop> {
  const { shop } = await post('/internal/v1/shops', operator, { name })
  const { secret } = await post(`/internal/v1/shops/${shop.id}/api-keys`, operator, { name: 'bench' })
  const headers = { authorization: `Bearer ${secret}` }
  const categories = await (await fetch(`${base}/v1/categories`, { headers })).json()
  const products: string[] = []
  for (let i = 0; i < PRODUCTS_PER_SHOP; i++) {
    const { product } = await post('/v1/products', headers, {
      categoryId: categories.data.categories[0].id,
      title: `Product ${String(i).padStart(2, '0')}`,
      description: 'Benchmark product.',
      isActive: true,
      external: true,
      currencyRateId: '',
      price: 100 + i,
      imageId: '',
      employeeReward: { type: 'percent', value: 0 },
      fields: [emailField],
      filters: []
    })
    products.push(product.id)
  }
  return { name, id: shop.id, headers, products }
}

// jit off, as the service's connections (db/core/client.ts): the plans below are the ones it runs.
const db = postgres(databaseUrl(DATABASE_URL, BENCH_DB), {
  max: 1, onnotice: () => {}, connection: { session_replication_role: 'replica', jit: 'off' }
})

/**
 * `count` orders of `shop` spread evenly over the `days` days ending `endDaysAgo`
 * days ago, with their ledger rows; in SQL, without triggers (replica role), so the
 * columns the triggers keep (external, order_counts, the ledger's product) are set here.
 */
async function seedOrders (shop: Shop, count: number, days: number, endDaysAgo: number) {
  await db.unsafe(`
    with o as (
      insert into orders (shop_id, product_id, product_title, quantity, amount, status, external, field_values, created_at, updated_at)
      select $1, p.ids[1 + (n / 20) % ${PRODUCTS_PER_SHOP}], 'Product', 1 + n % 3, ((1 + n % 3) * (100 + n % 97 + 0.01 * (n % 100)))::numeric(14, 2),
        case when n % 20 < 17 then 'completed' when n % 20 < 19 then 'cancelled' else 'paid' end, true, '[]'::jsonb, t, t
      from (select $2::uuid[] as ids) p,
        generate_series(0, $3 - 1) n,
        lateral (select date_trunc('milliseconds', now() - interval '1 day' * $5 - interval '1 day' * $4 * (n::float8 / $3)) as t) ts
      returning id, shop_id, product_id, amount, status, created_at
    )
    insert into ledger_entries (shop_id, order_id, product_id, kind, amount, created_at)
    select shop_id, id, product_id, case status when 'completed' then 'credit' else 'refund' end, amount,
      least(created_at + case status when 'completed' then interval '1 hour' else interval '30 minutes' end, date_trunc('milliseconds', now()))
    from o where status in ('completed', 'cancelled')`, [shop.id, shop.products, count, days, endDaysAgo])
}

log('creating the shops and products through the API')
const small = await createShop('small: 10 000 orders over a year')
const large = await createShop('large: 1 000 000 orders over a year')
const history = await createShop('history: 10 000 orders this year, 990 000 the year before')
log('seeding orders and ledger rows in SQL')
await seedOrders(small, 10_000, 365, 0)
await seedOrders(large, 1_000_000, 365, 0)
await seedOrders(history, 10_000, 365, 0)
await seedOrders(history, 990_000, 365, 365)
await db.unsafe(`insert into order_counts (shop_id, status, product_id, count)
  select shop_id, status, product_id, count(*) from orders group by 1, 2, 3
  on conflict (shop_id, status, product_id) do update set count = excluded.count`)
log('filling the sales rollup the triggers would have kept')
await fillSalesRollup(db)
log('vacuum analyze (the visibility map lets the reads stay in the indexes)')
await db.unsafe('vacuum analyze orders')
await db.unsafe('vacuum analyze ledger_entries')
await db.unsafe('vacuum analyze products')
await db.unsafe('vacuum analyze sales_rollup, sales_rollup_days, sales_rollup_shop')
const counted = await db`select shop_id, count(*)::int as n from orders group by shop_id`
log(`orders: ${counted.map((r) => r.n).join(', ')}`)

const today = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date())
const daysBefore = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)
const year = { from: daysBefore(365), to: today }
const month = { from: daysBefore(29), to: today }

interface Figures { p50: number, p99: number, max: number }

/** `SAMPLES` requests one after the other (after 5 to warm up); their latencies in ms. */
async function measure (shop: Shop, query: Record<string, string>): Promise<Figures> {
  const url = `${base}/v1/stats/sales?${new URLSearchParams({ ...query, tz: TZ })}`
  const once = async () => {
    const begin = performance.now()
    const res = await fetch(url, { headers: shop.headers })
    const body = await res.text()
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body}`)
    return performance.now() - begin
  }
  for (let i = 0; i < 5; i++) await once()
  const times: number[] = []
  for (let i = 0; i < SAMPLES; i++) times.push(await once())
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]
  return { p50: at(0.5), p99: at(0.99), max: times.at(-1)! }
}

const show = (f: Figures) => `p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms`
const verdict = (ok: boolean) => ok ? 'met' : 'MISSED'
const results: string[] = []
const report = (line: string) => { results.push(line); log(line) }

log(`measuring, ${SAMPLES} requests each; load average ${loadAverage()}`)
for (const groupBy of ['day', 'product']) {
  const figures = await measure(large, { ...year, groupBy })
  report(`large, a year, groupBy=${groupBy}: ${show(figures)} — target p99 ≤ ${TARGET_P99_MS} ms ${verdict(figures.p99 <= TARGET_P99_MS)}`)
}
const monthSmall = await measure(small, { ...month, groupBy: 'day' })
const monthLarge = await measure(large, { ...month, groupBy: 'day' })
const monthHistory = await measure(history, { ...month, groupBy: 'day' })
const yearSmall = await measure(small, { ...year, groupBy: 'day' })
const yearHistory = await measure(history, { ...year, groupBy: 'day' })
report(`30 days by day: small ${show(monthSmall)}; large ${show(monthLarge)}; history ${show(monthHistory)}`)
const ratio = (a: Figures, b: Figures) => a.p50 / b.p50
report(`30 days, large (≈82 000 orders in the range) / small (≈820): ${ratio(monthLarge, monthSmall).toFixed(2)}× at p50 — target ≤ ${TARGET_FLATNESS}× ${verdict(ratio(monthLarge, monthSmall) <= TARGET_FLATNESS)}`)
report(`30 days, history (1 000 000 orders over two years) / small (10 000): ${ratio(monthHistory, monthSmall).toFixed(2)}× at p50 — target ≤ ${TARGET_FLATNESS}× ${verdict(ratio(monthHistory, monthSmall) <= TARGET_FLATNESS)}`)
report(`a year by day, history / small: ${ratio(yearHistory, yearSmall).toFixed(2)}× at p50 (${show(yearHistory)} vs ${show(yearSmall)})`)
report(`load average at the end: ${loadAverage()}`)

// The plans, as Postgres ran them, for docs/performance/sales-stats.md.
const plans: Array<[string, Shop, string, { from: string, to: string }]> = [
  ['large, a year, by day', large, 'day', year],
  ['large, a year, by product', large, 'product', year],
  ['large, 30 days, by day', large, 'day', month],
  ['history, 30 days, by day', history, 'day', month]
]
for (const [title, shop, groupBy, range] of plans) {
  const rows = await db.unsafe(`explain (analyze, buffers, costs off, summary on) ${salesStatsSql(groupBy as 'day', false)}`,
    [shop.id, range.from, range.to, TZ])
  console.log(`\n--- EXPLAIN (ANALYZE, BUFFERS): ${title}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`)
}

console.log(`\nsummary\n${results.join('\n')}`)
await stopAllServers()
await db.end()
if (!BENCH_KEEP_DB) await dropDatabase(DATABASE_URL, BENCH_DB)
