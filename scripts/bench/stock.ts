// The stock path of `npm run bench` (docs/performance.md, docs/stock.md), in one
// process on its own database:
//  - purchase with instant delivery (createPurchase: the purchase's validation,
//    pricing and transaction, through the service's own pool) against a bare
//    baseline doing the same row work with postgres.js in one transaction (lock
//    and take N items FOR UPDATE SKIP LOCKED, insert the order, mark the items),
//    the two taking turns in slices, same concurrency, same pool size, each
//    purchase of a random one of SHOPS shops with one stock product each (the
//    target); and the same on one product of one shop (reported, no target:
//    the service serialises a product's takers and a shop's events);
//  - taking items at 1 000 000 available items against at most 10 (topped up
//    between batches), p99 of single purchases one at a time;
//  - an upload of 10 000 codes through the route (app.inject: validation,
//    encryption, duplicate check, insert).
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import postgres from 'postgres'
import { buildApp } from '../../app.js'
import { createApiKey } from '../../db/api-keys.js'
import { createPurchase } from '../../db/orders.js'
import { StockCipher } from '../../domain/stock-cipher.js'
import { loadConfig } from '../../plugins/config.js'
import { log } from './processes.js'
import { createDatabase, databaseUrl, dropDatabase } from './seed.js'

export interface StockBenchResult {
  load: number[]
  /** Purchases/s spread over SHOPS shops (the target) and on one hot product. */
  purchase: { service: number, baseline: number }
  hot: { service: number, baseline: number }
  take: { p99AtMillion: number, p99AtTen: number, medianAtMillion: number, medianAtTen: number }
  uploadMs: number
}

const NO_OPTION = '00000000-0000-0000-0000-000000000000'
const MILLION = 1_000_000
/** Shops (one stock product each) the purchase comparison spreads over, per side. */
const SHOPS = 64
/** Items per spread product: more than a run's purchases of one product. */
const SPREAD_ITEMS = 1500

/** Inserts `count` encrypted items of `productId` in chunks of set-based inserts. */
async function seedItems (sql: postgres.Sql, cipher: StockCipher, shopId: string, productId: string, count: number, prefix: string) {
  const chunk = 20_000
  for (let start = 0; start < count; start += chunk) {
    const rows = Array.from({ length: Math.min(chunk, count - start) }, (_, i) => {
      const value = `${prefix}-${start + i}-${randomBytes(6).toString('hex')}`
      const e = cipher.encrypt(value, productId)
      return { c: e.ciphertext.toString('base64'), n: e.nonce.toString('base64'), h: cipher.hash(value).toString('base64'), p: value.slice(0, 4) }
    })
    await sql.unsafe(`insert into stock_items (shop_id, product_id, option_key, ciphertext, nonce, key_id, value_hash, preview)
      select $1, $2, $3, decode(x->>'c', 'base64'), decode(x->>'n', 'base64'), $4, decode(x->>'h', 'base64'), x->>'p'
      from jsonb_array_elements($5::text::jsonb) with ordinality t(x, ord) order by ord`, [shopId, productId, NO_OPTION, cipher.keyId, JSON.stringify(rows)])
  }
  await sql.unsafe(`insert into stock_counts (product_id, option_key, available) values ($1, $2, $3)
    on conflict (product_id, option_key) do update set available = stock_counts.available + excluded.available`, [productId, NO_OPTION, count])
}

async function seedProduct (sql: postgres.Sql, shopId: string, categoryId: string, title: string): Promise<string> {
  const [{ id }] = await sql`insert into products (shop_id, category_id, title, description, active, external, price, employee_reward_type, employee_reward_value, auto_delivery)
    values (${shopId}, ${categoryId}, ${title}, '', true, true, 10, 'percent', 0, 'stock') returning id`
  return id
}

function quantile (values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

/** Runs `work` with `concurrency` workers for `ms`; returns the completed count. */
async function saturate (ms: number, concurrency: number, work: () => Promise<void>): Promise<number> {
  const until = Date.now() + ms
  let done = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) { await work(); done++ }
  }))
  return done
}

export async function benchStock (serverUrl: string, database: string, options: { poolMax: number, concurrency: number, sliceMs: number, slices: number, keepDatabase: boolean }): Promise<StockBenchResult> {
  const load: number[] = [os.loadavg()[0]]
  await createDatabase(serverUrl, database)
  const url = databaseUrl(serverUrl, database)
  const key = randomBytes(32)
  const cipher = new StockCipher(key)
  const config = loadConfig({}, { DATABASE_URL: url, LOG_LEVEL: 'silent', STOCK_ENCRYPTION_KEY: key.toString('base64'), DB_POOL_MAX: options.poolMax, PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0 })
  const app = await buildApp({ config })
  const sql = postgres(url, { max: options.poolMax, onnotice: () => {} })
  try {
    const [{ id: shopId }] = await sql`insert into shops (name) values ('stock bench') returning id`
    const [{ id: categoryId }] = await sql`select id from categories limit 1`
    const million = await seedProduct(sql, shopId, categoryId, 'million')
    const ten = await seedProduct(sql, shopId, categoryId, 'ten')
    const bare = await seedProduct(sql, shopId, categoryId, 'baseline')
    log(`stock: seeding ${MILLION} items`)
    await seedItems(sql, cipher, shopId, million, MILLION, 'M')
    await seedItems(sql, cipher, shopId, bare, 100_000, 'B')
    await seedItems(sql, cipher, shopId, ten, 10, 'T')
    // The spread: SHOPS shops per side, each with one stock product.
    log(`stock: seeding ${SHOPS} × 2 shops of ${SPREAD_ITEMS} items`)
    const spread = async (side: string) => {
      const products: Array<{ shopId: string, productId: string }> = []
      for (let i = 0; i < SHOPS; i++) {
        const [{ id }] = await sql`insert into shops (name) values (${`stock bench ${side} ${i}`}) returning id`
        const productId = await seedProduct(sql, id, categoryId, `${side} ${i}`)
        await seedItems(sql, cipher, id, productId, SPREAD_ITEMS, `${side}${i}`)
        products.push({ shopId: id, productId })
      }
      return products
    }
    const serviceSpread = await spread('S')
    const bareSpread = await spread('B')
    await sql`vacuum analyze stock_items`
    load.push(os.loadavg()[0])

    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]
    const buy = async (productId: string, quantity = 1) => {
      const order = await createPurchase(app.db, { productId, quantity, fieldValues: [] }, { cipher })
      if (order.status !== 'awaiting_confirmation') throw new Error('a measured purchase was not delivered')
      return order
    }
    const baseline = (shop: string, productId: string) => sql.begin(async (tx) => {
      // The variant as a range, as the service's take writes it (db/stock-delivery.ts), so both take through the partial index of available items.
      const items = await tx`select id from stock_items where product_id = ${productId} and option_key between ${NO_OPTION} and ${NO_OPTION} and status = 'available'
        order by option_key, position limit 1 for update skip locked`
      if (items.length === 0) throw new Error('the baseline ran out of items')
      const [order] = await tx`insert into orders (shop_id, product_id, product_title, quantity, amount, field_values, status, assignee_type)
        values (${shop}, ${productId}, 'baseline', 1, 10, '[]', 'awaiting_confirmation', 'auto') returning id`
      await tx`update stock_items set status = 'delivered', order_id = ${order.id}, delivered_at = now() where id = ${items[0].id}`
    })
    const spreadService = async () => { await buy(pick(serviceSpread).productId) }
    const spreadBaseline = async () => { const p = pick(bareSpread); await baseline(p.shopId, p.productId) }
    const hotService = async () => { await buy(million) }
    const hotBaseline = async () => { await baseline(shopId, bare) }

    /** Purchases/s of each side, warmed up, then taking turns in slices. */
    const compare = async (service: () => Promise<void>, bareSide: () => Promise<void>) => {
      await saturate(1000, options.concurrency, service)
      await saturate(1000, options.concurrency, bareSide)
      let serviceCount = 0
      let bareCount = 0
      for (let slice = 0; slice < options.slices; slice++) {
        const first = slice % 2 === 0
        if (first) serviceCount += await saturate(options.sliceMs, options.concurrency, service)
        bareCount += await saturate(options.sliceMs, options.concurrency, bareSide)
        if (!first) serviceCount += await saturate(options.sliceMs, options.concurrency, service)
        load.push(os.loadavg()[0])
      }
      const seconds = options.sliceMs * options.slices / 1000
      return { service: serviceCount / seconds, baseline: bareCount / seconds }
    }
    const purchase = await compare(spreadService, spreadBaseline)
    log(`stock: purchase over ${SHOPS} shops ${purchase.service.toFixed(0)}/s, baseline ${purchase.baseline.toFixed(0)}/s`)
    const hot = await compare(hotService, hotBaseline)
    log(`stock: purchase of one product ${hot.service.toFixed(0)}/s, baseline ${hot.baseline.toFixed(0)}/s`)

    // Taking flat: single purchases one at a time, at 1 M available and at ≤ 10 (topped up per 10).
    const atMillion: number[] = []
    const atTen: number[] = []
    for (let batch = 0; batch < 40; batch++) {
      for (let i = 0; i < 10; i++) {
        let start = performance.now()
        await buy(million)
        atMillion.push(performance.now() - start)
        start = performance.now()
        await buy(ten)
        atTen.push(performance.now() - start)
      }
      await seedItems(sql, cipher, shopId, ten, 10, `T${batch}`)
    }
    const take = { p99AtMillion: quantile(atMillion, 0.99), p99AtTen: quantile(atTen, 0.99), medianAtMillion: quantile(atMillion, 0.5), medianAtTen: quantile(atTen, 0.5) }
    log(`stock: take p99 ${take.p99AtMillion.toFixed(2)} ms at 1 M, ${take.p99AtTen.toFixed(2)} ms at 10`)

    // An upload of 10 000 codes through the route.
    const created = await createApiKey(app.db, shopId, 'bench')
    const headers = { authorization: `Bearer ${created.secret}`, 'content-type': 'application/json' }
    const values = Array.from({ length: 10_000 }, (_, i) => `UPLOAD-${i}-${randomBytes(8).toString('hex')}`)
    const started = performance.now()
    const res = await app.inject({ method: 'POST', url: `/v1/products/${ten}/stock/items`, headers, payload: JSON.stringify({ values }) })
    const uploadMs = performance.now() - started
    if (res.statusCode !== 201 || res.json().data.added !== 10_000) throw new Error(`upload: ${res.statusCode} ${res.body.slice(0, 200)}`)
    log(`stock: upload of 10 000 codes ${uploadMs.toFixed(0)} ms`)
    load.push(os.loadavg()[0])
    return { load, purchase, hot, take, uploadMs }
  } finally {
    await sql.end({ timeout: 5 })
    await app.close()
    if (!options.keepDatabase) await dropDatabase(serverUrl, database)
  }
}

/** The stock targets as lines with PASS / FAIL. */
export function stockReport (results: StockBenchResult[]): string {
  const med = (f: (r: StockBenchResult) => number) => quantile(results.map(f), 0.5)
  const ratio = med((r) => r.purchase.service / r.purchase.baseline)
  const hotRatio = med((r) => r.hot.service / r.hot.baseline)
  const flat = med((r) => r.take.p99AtMillion / r.take.p99AtTen)
  const upload = med((r) => r.uploadMs)
  const verdict = (ok: boolean) => ok ? 'PASS' : 'FAIL'
  return [
    `Stock (per run: purchases/s service vs baseline over ${SHOPS} shops, and on one product; take p99 at 1 M vs ≤ 10 available; upload of 10 000; load average samples)`,
    ...results.map((r, i) => `  run ${i + 1}: ${r.purchase.service.toFixed(0)}/s vs ${r.purchase.baseline.toFixed(0)}/s (one product ${r.hot.service.toFixed(0)}/s vs ${r.hot.baseline.toFixed(0)}/s); p99 ${r.take.p99AtMillion.toFixed(2)} vs ${r.take.p99AtTen.toFixed(2)} ms ` +
      `(median ${r.take.medianAtMillion.toFixed(2)} vs ${r.take.medianAtTen.toFixed(2)}); upload ${r.uploadMs.toFixed(0)} ms; load ${r.load.map((l) => l.toFixed(2)).join(' ')}`),
    `  ${verdict(ratio >= 0.9)} purchase with instant delivery ≥ 0.9× baseline, over ${SHOPS} shops: ${ratio.toFixed(2)}×`,
    `  (no target) all purchases on one product of one shop: ${hotRatio.toFixed(2)}× (serialised on the product's and the shop's locks, docs/performance.md)`,
    `  ${verdict(flat <= 1.3)} taking flat, p99 at 1 M ≤ 1.3× at 10: ${flat.toFixed(2)}×`,
    `  ${verdict(upload < 2000)} upload of 10 000 codes < 2 s: ${upload.toFixed(0)} ms`
  ].join('\n')
}
