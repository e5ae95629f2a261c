// The stock scenario of `npm run bench` (docs/performance/stock.md, "Stock: instant
// delivery"), all over HTTP against the service (`node dist/server.js` with
// VALUES_ENCRYPTION_KEY, on a database of its own) and the baseline
// (scripts/bench/baseline.ts, POST /internal/v1/orders doing the same row work):
//  - purchases with instant delivery, each of a random one of SHOPS shops with
//    one stock product (SHOPS per side), the two sides taking turns in slices
//    (target ≥ 0.9× the baseline); and the same on one product of one shop
//    (reported, no target: the service serialises a product's takers);
//  - taking flat: single purchases one at a time at 1 000 000 available items
//    and at ≤ 10 (topped up by an upload of 10 after every 10), p99 against p99;
//  - an upload of 10 000 codes through POST /v1/products/{id}/stock/items (to the
//    product of 1 M).
import { randomBytes } from 'node:crypto'
import type { Measure, Workload } from './load.js'
import { call, log, type Server } from './processes.js'
import { seedStock, type StockProduct } from './seed-stock.js'

/** Shops (one stock product each) the purchase comparison spreads over, per side. */
export const STOCK_SHOPS = 64
/** Items per spread product: more than three runs' purchases of one product. */
const SPREAD_ITEMS = 2000
const MILLION = 1_000_000
const BATCHES = 40

export interface StockFixtures {
  spread: { service: StockProduct[], baseline: StockProduct[] }
  hot: { service: StockProduct, baseline: StockProduct }
  million: StockProduct
  ten: StockProduct
}

export interface StockResult {
  purchase: { baseline: Measure, service: Measure }
  hot: { baseline: Measure, service: Measure }
  take: { p99AtMillion: number, p99AtTen: number, medianAtMillion: number, medianAtTen: number }
  uploadMs: number
}

/** Seeds the stock database (migrated, empty): 1 M + 10 items, two hot products, SHOPS + SHOPS spread products. */
export async function seedStockBench (url: string, stockKey: Buffer): Promise<StockFixtures> {
  const spread = (side: string) => Array.from({ length: STOCK_SHOPS }, (_, i) => ({ shop: `${side} ${i}`, items: SPREAD_ITEMS }))
  const products = await seedStock(url, stockKey, [
    { shop: 'take', items: MILLION },
    { shop: 'take', items: 10 },
    { shop: 'hot service', items: 60_000 },
    { shop: 'hot baseline', items: 200_000 },
    ...spread('service'),
    ...spread('baseline')
  ])
  const [million, ten, hotService, hotBaseline] = products
  return {
    million,
    ten,
    hot: { service: hotService, baseline: hotBaseline },
    spread: { service: products.slice(4, 4 + STOCK_SHOPS), baseline: products.slice(4 + STOCK_SHOPS) }
  }
}

const purchaseBody = (productId: string) => JSON.stringify({ productId, quantity: 1, fieldValues: [] })

/** Purchases of a random product of `products`, as the marketplace sends them. */
function purchases (name: string, products: StockProduct[], token: string): Workload {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  return { name, next: () => ({ method: 'POST', path: '/internal/v1/orders', headers, body: purchaseBody(products[Math.floor(Math.random() * products.length)].productId) }) }
}

/** One purchase on each side: 201, delivered from stock with a decrypted value, the same order shape. */
export async function preflightStock (service: Server, baseline: Server, token: string, fixtures: StockFixtures) {
  const shapes = []
  for (const [server, product] of [[service, fixtures.spread.service[0]], [baseline, fixtures.spread.baseline[0]]] as const) {
    const { order } = await call(server, 'POST', '/internal/v1/orders', token, purchaseBody(product.productId))
    if (order.status !== 'awaiting_confirmation' || !String(order.deliveredValues[0]).startsWith('SEED-')) {
      throw new Error(`preflight stock on ${server.name}: not delivered from stock: ${JSON.stringify(order)}`)
    }
    shapes.push(Object.keys(order).join(','))
  }
  if (shapes[0] !== shapes[1]) throw new Error(`preflight stock: the orders differ in shape: ${shapes.join(' vs ')}`)
  log('preflight stock: both deliver from stock, same order shape')
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]

/** One run of the stock scenario; `pair` measures baseline against service in slices taken in turns. */
export async function stockRun (
  service: Server, baseline: Server, token: string, fixtures: StockFixtures,
  pair: (a: { server: Server, workload: Workload }, b: { server: Server, workload: Workload }) => Promise<{ baseline: Measure, service: Measure }>
): Promise<StockResult> {
  const purchase = await pair(
    { server: baseline, workload: purchases('stock purchase', fixtures.spread.baseline, token) },
    { server: service, workload: purchases('stock purchase', fixtures.spread.service, token) })
  const hot = await pair(
    { server: baseline, workload: purchases('stock, one product', [fixtures.hot.baseline], token) },
    { server: service, workload: purchases('stock, one product', [fixtures.hot.service], token) })

  // Taking flat: single purchases one at a time, at 1 M available and at ≤ 10 (topped up per 10 through the upload route).
  const { secret } = await call(service, 'POST', `/internal/v1/shops/${fixtures.ten.shopId}/api-keys`, token, JSON.stringify({ name: 'bench' }))
  const timed = async (productId: string) => {
    const started = performance.now()
    await call(service, 'POST', '/internal/v1/orders', token, purchaseBody(productId))
    return performance.now() - started
  }
  const atMillion: number[] = []
  const atTen: number[] = []
  for (let batch = 0; batch < BATCHES; batch++) {
    for (let i = 0; i < 10; i++) {
      atMillion.push(await timed(fixtures.million.productId))
      atTen.push(await timed(fixtures.ten.productId))
    }
    const values = Array.from({ length: 10 }, (_, i) => `TOPUP-${batch}-${i}-${randomBytes(8).toString('hex')}`)
    await call(service, 'POST', `/v1/products/${fixtures.ten.productId}/stock/items`, secret, JSON.stringify({ values }))
  }
  const take = { p99AtMillion: quantile(atMillion, 0.99), p99AtTen: quantile(atTen, 0.99), medianAtMillion: quantile(atMillion, 0.5), medianAtTen: quantile(atTen, 0.5) }
  log(`stock: take p99 ${take.p99AtMillion.toFixed(2)} ms at 1 M, ${take.p99AtTen.toFixed(2)} ms at ≤ 10`)

  const values = Array.from({ length: 10_000 }, (_, i) => `UPLOAD-${i}-${randomBytes(8).toString('hex')}`)
  const started = performance.now()
  const { added } = await call(service, 'POST', `/v1/products/${fixtures.million.productId}/stock/items`, secret, JSON.stringify({ values }))
  const uploadMs = performance.now() - started
  if (added !== 10_000) throw new Error(`upload: ${added} of 10 000 added`)
  log(`stock: upload of 10 000 codes ${uploadMs.toFixed(0)} ms`)
  return { purchase, hot, take, uploadMs }
}
