// A receiver that never answers, with a backlog of hundreds of deliveries, holds
// a few of the worker's places and nothing else: the API's latency and another
// shop's deliveries stay as they were before it (within 3x, the house margin).
import t from 'tap'
import { build, createShop, internalHeaders, type App } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'

const BACKLOG = 300

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1]

function purchase (app: App, product: { id: string, fields: Array<{ id: string }> }) {
  return app.inject({
    method: 'POST',
    url: '/internal/v1/orders',
    headers: internalHeaders,
    payload: { productId: product.id, quantity: 1, fieldValues: [{ fieldId: product.fields[0].id, value: 'buyer@example.com' }] }
  })
}

t.test('a receiver that never answers delays neither the API nor other shops\' deliveries', async (t) => {
  // Attempts to the silent receiver hang for the whole test.
  const app = await build(t, { ...localDelivery, WEBHOOK_TIMEOUT_MS: 20_000, RATE_LIMIT_MAX: 100_000 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

  const silent = await startReceiver(t)
  silent.answer = () => 'hang'
  const healthy = await startReceiver(t)
  const stuck = await createShop(app, 'Stuck shop')
  const stuckProduct = await createProduct(app, stuck)
  const stuckEndpoint = await createEndpoint(app, stuck, { url: silent.url })
  const other = await createShop(app, 'Other shop')
  const otherProduct = await createProduct(app, other)
  await createEndpoint(app, other, { url: healthy.url })

  /** Latencies (ms) of the work-queue call over real HTTP. */
  async function apiLatencies (count: number) {
    const latencies = []
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      const res = await fetch(`${base}/v1/orders?status=paid&limit=20`, { headers: other.headers })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`orders: ${res.status}`)
      latencies.push(performance.now() - started)
    }
    return latencies
  }

  /** From purchase to webhook received (ms), for the other shop's orders. */
  async function deliveryLatencies (receiver: WebhookReceiver, count: number) {
    const latencies = []
    for (let i = 0; i < count; i++) {
      const started = Date.now()
      const order = (await purchase(app, otherProduct)).json().data.order
      const ofOrder = (a: { body: string, status?: number }) => a.status === 200 && JSON.parse(a.body).data.order.id === order.id
      await receiver.waitFor((attempts) => attempts.some(ofOrder), 30_000, 'the other shop\'s delivery')
      latencies.push(receiver.attempts.find(ofOrder)!.receivedAt - started)
    }
    return latencies
  }

  await apiLatencies(20)
  const before = { api: p99(await apiLatencies(200)), delivery: Math.max(...await deliveryLatencies(healthy, 10)) }

  for (let i = 0; i < BACKLOG; i += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, () => purchase(app, stuckProduct)))
    for (const res of batch) if (res.statusCode !== 201) throw new Error(`purchase: ${res.statusCode}`)
  }
  await silent.waitFor(() => silent.inFlight() > 0, 10_000, 'attempts hanging on the silent receiver')

  const during = { api: p99(await apiLatencies(200)), delivery: Math.max(...await deliveryLatencies(healthy, 10)) }
  t.comment(`API p99 ${before.api.toFixed(1)} -> ${during.api.toFixed(1)} ms; other shop's slowest delivery ${before.delivery} -> ${during.delivery} ms`)
  t.ok(during.api <= 3 * before.api + 20, 'the API\'s p99 is unaffected')
  t.ok(during.delivery <= 3 * before.delivery + 300, 'the other shop\'s deliveries are unaffected')
  t.ok(silent.inFlight() <= 4, `the silent endpoint holds at most its share of attempts (${silent.inFlight()})`)

  const stuckLog = await deliveries(app, stuck, stuckEndpoint.endpoint.id, '?status=pending&limit=100')
  t.equal(stuckLog.deliveries.length, 100, 'the stuck shop\'s deliveries wait, pending')
  t.equal((await deliveries(app, stuck, stuckEndpoint.endpoint.id, '?status=succeeded')).deliveries.length, 0)
})
