// Two instances on one database deliver 1 000 events to a receiver that fails
// 30 % of attempts at random: every event arrives, each attempt is made by one
// instance (no webhook-id is ever in flight twice at once), and the delivery
// log accounts for every attempt the receiver saw.
import t from 'tap'
import { build, createShop, internalHeaders, type App } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { until } from '../fixtures/until.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'

const EVENTS = 1000
const SHOPS = 4

t.test('two instances, 1 000 events, 30 % of attempts failing', async (t) => {
  // Twenty quick retries: an event failing all 21 attempts (0.3^21) does not happen.
  const config = { ...localDelivery, WEBHOOK_RETRY_SCHEDULE: Array(20).fill('0.1').join(','), DB_POOL_MAX: 4, RATE_LIMIT_MAX: 100_000 }
  const instances = [await build(t, config), await build(t, config)]
  const receiver = await startReceiver(t)
  receiver.answer = () => Math.random() < 0.3 ? 500 : 200
  // Answers take a moment, so a second attempt of one event made at once would overlap.
  receiver.delayMs = 20

  const shops: Array<{ shop: Awaited<ReturnType<typeof createShop>>, product: Awaited<ReturnType<typeof createProduct>>, endpoint: { id: string } }> = []
  for (let i = 0; i < SHOPS; i++) {
    const shop = await createShop(instances[0], `Shop ${i}`)
    const product = await createProduct(instances[0], shop)
    const { endpoint } = await createEndpoint(instances[0], shop, { url: `${receiver.url}/${i}` })
    shops.push({ shop, product, endpoint })
  }

  // Purchases through both instances, eight at a time.
  const orderIds = new Set<string>()
  let next = 0
  async function purchaser () {
    while (next < EVENTS) {
      const n = next++
      const app: App = instances[n % 2]
      const { product } = shops[n % SHOPS]
      const res = await app.inject({
        method: 'POST',
        url: '/internal/v1/orders',
        headers: internalHeaders,
        payload: { productId: product.id, quantity: 1, fieldValues: [{ fieldId: product.fields[0].id, value: `buyer${n}@example.com` }] }
      })
      if (res.statusCode !== 201) throw new Error(`purchase ${n}: ${res.statusCode} ${res.body}`)
      orderIds.add(res.json().data.order.id)
    }
  }
  await Promise.all(Array.from({ length: 8 }, purchaser))

  await receiver.waitFor(() => receiver.delivered().size >= EVENTS, 90_000, 'every event')
  const delivered = receiver.delivered()
  t.equal(delivered.size, EVENTS, 'every event was received')
  const receivedOrders = new Set([...delivered.values()].map((a) => JSON.parse(a.body).data.order.id))
  t.same(receivedOrders, orderIds, 'exactly the purchased orders')
  t.same(receiver.overlaps, [], 'no webhook-id had two attempts in flight at once')
  const failures = receiver.attempts.filter((a) => a.status === 500).length
  t.ok(failures > EVENTS * 0.2, `the receiver did fail attempts (${failures} of ${receiver.attempts.length})`)

  // The logs, once the last answers are recorded (just after they were sent).
  let logged = 0
  let logAttempts = 0
  let unfinished: string[] = []
  await until(async () => {
    logged = 0
    logAttempts = 0
    unfinished = []
    for (const { shop, endpoint } of shops) {
      let cursor: string | null = ''
      while (cursor !== null) {
        const page = await deliveries(instances[1], shop, endpoint.id, `?limit=100${cursor ? `&after=${cursor}` : ''}`)
        for (const d of page.deliveries) {
          if (d.status !== 'succeeded') unfinished.push(d.id)
          logAttempts += d.attempts
        }
        logged += page.deliveries.length
        cursor = page.nextCursor
      }
    }
    return unfinished.length === 0
  }, 20_000, 50)
  t.equal(logged, EVENTS, 'one delivery per event in the logs')
  t.same(unfinished, [], 'every delivery succeeded')
  t.ok(logAttempts >= receiver.attempts.length, `every attempt received is counted in the log (${logAttempts} ≥ ${receiver.attempts.length})`)
})
