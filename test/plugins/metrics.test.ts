// GET /metrics on METRICS_PORT: the Prometheus families an operator scrapes,
// read back through a parser of the text format after a few real requests.
import t from 'tap'
import { freePort } from '../fixtures/free-port.js'
import { parsePrometheusText, type Family } from '../fixtures/prometheus-text.js'
import { anyCategoryId, productInput } from '../fixtures/products.js'
import { build, createShop } from '../helper.js'

function family (families: Map<string, Family>, name: string, type: string): Family {
  const found = families.get(name)
  if (!found) throw new Error(`no family ${name} among ${[...families.keys()].join(', ')}`)
  if (found.type !== type) throw new Error(`${name} is a ${found.type}, not a ${type}`)
  return found
}

const value = (f: Family, name: string, labels: Record<string, string>) =>
  f.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value

t.test('after a few requests, /metrics exposes every family, labelled by route pattern', async (t) => {
  const port = await freePort()
  const app = await build(t, { METRICS_PORT: port, RATE_LIMIT_MAX: 5 })
  const shop = await createShop(app)

  const categoryId = await anyCategoryId(app, shop) // 1st counted request
  const body = productInput(categoryId, { title: 'Metered' })
  const headers = { ...shop.headers, 'idempotency-key': 'metrics-create' }
  const created = await app.inject({ method: 'POST', url: '/v1/products', headers, payload: body })
  t.equal(created.statusCode, 201)
  const productId = created.json().data.product.id
  t.equal((await app.inject({ method: 'POST', url: '/v1/products', headers, payload: body })).headers['idempotency-replayed'], 'true')
  t.equal((await app.inject({ method: 'POST', url: '/v1/products', headers, payload: { ...body, title: 'Other' } })).statusCode, 422)
  t.equal((await app.inject({ method: 'GET', url: `/v1/products/${productId}`, headers: shop.headers })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `/v1/products/${productId}`, headers: shop.headers })).statusCode, 429, 'the 6th request is over the window')

  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404, 'nothing on the public port')
  const res = await fetch(`http://127.0.0.1:${port}/metrics`)
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const families = parsePrometheusText(await res.text())

  const duration = family(families, 'http_request_duration_seconds', 'histogram')
  t.equal(value(duration, 'http_request_duration_seconds_count', { method: 'GET', route: '/v1/products/:id', status_code: '200' }), 1, 'by route pattern, method and status')
  t.equal(value(duration, 'http_request_duration_seconds_count', { method: 'POST', route: '/v1/products', status_code: '201' }), 2, 'the replay counts as a request too')
  t.ok(value(duration, 'http_request_duration_seconds_bucket', { route: '/v1/products/:id', status_code: '200', le: '+Inf' }), 'buckets')
  t.notOk(duration.samples.some((s) => s.labels.route?.includes(productId)), 'never a raw URL')

  t.equal(value(family(families, 'http_requests_in_flight', 'gauge'), 'http_requests_in_flight', {}), 0)
  const pool = family(families, 'db_pool_connections', 'gauge')
  t.equal(value(pool, 'db_pool_connections', { state: 'max' }), 5)
  t.equal(value(pool, 'db_pool_connections', { state: 'waiting' }), 0)
  t.ok(value(pool, 'db_pool_connections', { state: 'in_use' }) !== undefined)
  t.equal(value(family(families, 'redis_connected', 'gauge'), 'redis_connected', {}), 1)
  const breakers = family(families, 'dependency_breaker_state', 'gauge')
  for (const dependency of ['database', 'redis']) {
    t.equal(value(breakers, 'dependency_breaker_state', { dependency, state: 'closed' }), 1, `${dependency} breaker closed`)
    t.equal(value(breakers, 'dependency_breaker_state', { dependency, state: 'open' }), 0)
  }
  t.equal(value(family(families, 'rate_limit_refusals_total', 'counter'), 'rate_limit_refusals_total', { caller: 'key' }), 1)
  const idempotency = family(families, 'idempotency_outcomes_total', 'counter')
  t.equal(value(idempotency, 'idempotency_outcomes_total', { outcome: 'replayed' }), 1)
  t.equal(value(idempotency, 'idempotency_outcomes_total', { outcome: 'key_reused' }), 1)
  t.ok(value(family(families, 'nodejs_eventloop_lag_seconds', 'gauge'), 'nodejs_eventloop_lag_seconds', {})! >= 0, 'event-loop lag')
  t.equal(value(family(families, 'load_shedding_active', 'gauge'), 'load_shedding_active', {}), 0)
  t.ok(value(family(families, 'process_resident_memory_bytes', 'gauge'), 'process_resident_memory_bytes', {})! > 0)

  t.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404, 'only /metrics on the metrics port')
})

t.test('without METRICS_PORT nothing listens for metrics', async (t) => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
  t.ok(app.metrics.getSingleMetric('http_request_duration_seconds'), 'the registry still collects, for plugins to extend')
})
