// `npm run bench:stall`: how long one request can block the event loop, for the
// largest legal bodies (schemas/body-limits.ts) and for the worst illegal ones.
// The service runs as its own process (`tsx server.ts`) on 127.0.0.1; each
// request is sent alone over a real socket and runs through the whole app
// (parse, validate, database, serialize); the loop's worst delay meanwhile is
// the service's own event-loop metric (`nodejs_eventloop_lag_max_seconds` on
// METRICS_PORT, perf_hooks.monitorEventLoopDelay, reset at every scrape), read
// before and after. The worst delay of RUNS runs is reported. Target: no legal
// request blocks the loop more than 100 ms (docs/reliability.md).
//
// On a machine shared with other work the figures stretch with the load (a
// blocked loop waits for the CPU too); `nice -n -15 npm run bench:stall` as root
// gives the measurement the CPU first.
//
// Settings (scripts/bench/settings.ts): DATABASE_URL (a scratch database is
// created there and dropped), REDIS_URL, STALL_RUNS.
import os from 'node:os'
import { freePort, killAllServers, sleep, startService, stopAllServers, waitReady } from './processes.js'
import { asciiJson, createDatabase, dropDatabase, largestCategory, largestDelivery, largestProduct } from './seed.js'
import { benchSettings } from './settings.js'

const { DATABASE_URL, REDIS_URL, STALL_RUNS: RUNS } = benchSettings('bench:stall')
const TOKEN = 'stall-measurement-internal-token'
const TARGET_MS = 100

const emailField = { type: 'text', label: 'Email', required: true, multiple: false, options: [] }
const scratch = `seller_api_stall_${process.pid}`
const scratchUrl = (() => { const u = new URL(DATABASE_URL); u.pathname = `/${scratch}`; return u.toString() })()
await createDatabase(DATABASE_URL, scratch)
const metricsPort = await freePort()
const service = await startService('service', {
  DATABASE_URL: scratchUrl,
  REDIS_URL,
  REDIS_PREFIX: `${scratch}:`,
  INTERNAL_TOKEN: TOKEN,
  DB_POOL_MAX: '4',
  METRICS_PORT: String(metricsPort),
  // Measured, never shed.
  PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0'
}, { fromSource: true })
await waitReady(service)
const internal = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
const base = `http://127.0.0.1:${service.port}`

interface Inject { method: string, url: string, headers: Record<string, string>, payload?: string }

/** The service's worst event-loop delay (ms) since the previous call (each scrape resets it). */
async function loopDelayMaxMs (): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  return Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1] ?? NaN) * 1000
}

async function send (request: Inject): Promise<number | 'closed'> {
  try {
    const res = await fetch(base + request.url, { method: request.method, headers: request.headers, body: request.payload })
    await res.arrayBuffer()
    return res.status
  } catch {
    // A 413 answered (and the socket closed) before the whole body was sent.
    return 'closed'
  }
}

/** The API's answer to a setup request, as app.inject gave it. */
async function inject (request: Inject) {
  const res = await fetch(base + request.url, { method: request.method, headers: request.headers, body: request.payload })
  const body = await res.text()
  return { json: () => JSON.parse(body) }
}

/** The event-loop delay (ms) while `request` runs: worst and median of RUNS runs, and the statuses seen. */
async function measure (request: () => Inject): Promise<{ worstMs: number, medianMs: number, statuses: Set<number | 'closed'> }> {
  const delays: number[] = []
  const statuses = new Set<number | 'closed'>()
  for (let i = 0; i < RUNS; i++) {
    const options = request()
    await sleep(50)
    await loopDelayMaxMs()
    const status = await send(options)
    await sleep(20)
    statuses.add(status)
    delays.push(await loopDelayMaxMs())
  }
  delays.sort((a, b) => a - b)
  return { worstMs: delays.at(-1)!, medianMs: delays[Math.floor(delays.length / 2)], statuses }
}

try {
  const shop = (await inject({ method: 'POST', url: '/internal/v1/shops', headers: internal, payload: JSON.stringify({ name: 'Stall' }) })).json().data.shop
  const key = (await inject({ method: 'POST', url: `/internal/v1/shops/${shop.id}/api-keys`, headers: internal, payload: JSON.stringify({ name: 'k' }) })).json().data.secret
  const seller = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const category = (await inject({ method: 'POST', url: '/internal/v1/categories', headers: internal, payload: asciiJson(largestCategory('stall/base')) })).json().data.category
  const productBody = asciiJson(largestProduct(category))
  const product = (await inject({ method: 'POST', url: '/v1/products', headers: seller, payload: productBody })).json().data.product
  const smallProduct = (await inject({
    method: 'POST',
    url: '/v1/products',
    headers: seller,
    payload: JSON.stringify({ ...largestProduct(category), title: 'small', description: '', fields: [emailField], filters: [] })
  })).json().data.product
  const deliveryBody = asciiJson(largestDelivery())
  let n = 0
  const paidOrder = async () => {
    const res = await inject({ method: 'POST', url: '/internal/v1/orders', headers: internal, payload: JSON.stringify({ productId: smallProduct.id, quantity: 1, fieldValues: [{ fieldId: smallProduct.fields[0].id, value: 'a@b.c' }] }) })
    return res.json().data.order.id as string
  }
  const takenOrders: string[] = []
  for (let i = 0; i < RUNS; i++) {
    const id = await paidOrder()
    await inject({ method: 'POST', url: `/v1/orders/${id}/take`, headers: { authorization: seller.authorization } })
    takenOrders.push(id)
  }
  const zeros = (bytes: number) => `{"values":[${'0,'.repeat(Math.floor(bytes / 2) - 20)}0]}`

  const scenarios: Array<[string, boolean, () => Inject]> = [
    [`POST /internal/v1/categories, largest (${(asciiJson(largestCategory('x')).length / 1e6).toFixed(1)} MB)`, true,
      () => ({ method: 'POST', url: '/internal/v1/categories', headers: internal, payload: asciiJson(largestCategory(`stall/c${n++}`)) })],
    [`POST /v1/products, largest (${(productBody.length / 1e6).toFixed(1)} MB), with Idempotency-Key`, true,
      () => ({ method: 'POST', url: '/v1/products', headers: { ...seller, 'idempotency-key': `p${n++}` }, payload: productBody })],
    [`PUT /v1/products/{id}, largest (${(productBody.length / 1e6).toFixed(1)} MB)`, true,
      () => ({ method: 'PUT', url: `/v1/products/${product.id}`, headers: seller, payload: productBody })],
    ['GET /v1/products/{id}, largest', true, () => ({ method: 'GET', url: `/v1/products/${product.id}`, headers: seller })],
    ['GET /v1/products?limit=1 (a page of one largest product)', true, () => ({ method: 'GET', url: '/v1/products?limit=1', headers: seller })],
    [`POST /v1/orders/{id}/deliver, largest (${(deliveryBody.length / 1e6).toFixed(1)} MB), with Idempotency-Key`, true,
      () => ({ method: 'POST', url: `/v1/orders/${takenOrders.pop()}/deliver`, headers: { ...seller, 'idempotency-key': `d${n++}` }, payload: deliveryBody })],
    ['illegal: deliver, 6 MB array of zeros (under the limit, over the value cap)', false,
      () => ({ method: 'POST', url: '/v1/orders/00000000-0000-4000-8000-000000000000/deliver', headers: seller, payload: zeros(6_000_000) })],
    ['illegal: take, 8 MiB array of zeros (over the limit)', false,
      () => ({ method: 'POST', url: '/v1/orders/00000000-0000-4000-8000-000000000000/take', headers: seller, payload: zeros(8 * 1024 * 1024) })]
  ]

  console.log(`event-loop stall per request over ${RUNS} runs; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, ${os.cpus().length} cores`)
  console.log('   worst   median  status  request')
  let failed = false
  for (const [name, legal, request] of scenarios) {
    const { worstMs, medianMs, statuses } = await measure(request)
    const verdict = legal ? (worstMs <= TARGET_MS ? 'ok' : 'OVER TARGET') : ''
    if (legal && worstMs > TARGET_MS) failed = true
    console.log(`${worstMs.toFixed(1).padStart(8)} ${medianMs.toFixed(1).padStart(8)}  ${[...statuses].join('/').padEnd(6)}  ${name}  ${verdict}`)
  }
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  process.exitCode = failed ? 1 : 0
} catch (err) {
  killAllServers()
  throw err
} finally {
  await stopAllServers()
  await dropDatabase(DATABASE_URL, scratch)
}
