// An instance killed (SIGKILL, no shutdown) in the middle of its attempts loses
// nothing: its leases run out and another instance delivers every event, the
// interrupted ones included, never two attempts of one event at once.
import t from 'tap'
import { buyOverHttp } from '../fixtures/orders.js'
import { build, createShop } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'
import { fileServerEnv, startServerProcess } from '../fixtures/server-process.js'
import { until } from '../fixtures/until.js'

const EVENTS = 200

t.test('an instance killed mid-attempt loses nothing', async (t) => {
  const receiver = await startReceiver(t)
  // Slow answers keep attempts in flight, so the kill interrupts some.
  receiver.delayMs = 100

  // Set up through an in-process instance, closed before any event exists.
  const setup = await build(t, localDelivery)
  const shop = await createShop(setup)
  const product = await createProduct(setup, shop)
  const { endpoint } = await createEndpoint(setup, shop, { url: receiver.url })
  await setup.close()

  const { child, port } = await startServerProcess(t, await fileServerEnv({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2'
  }))
  const orderIds = await buyOverHttp(port, product, EVENTS)

  // Kill it while attempts wait for their answers. Nothing runs between the check
  // and the kill, so the child never learns how those attempts ended.
  const unanswered = () => receiver.attempts.filter((a) => a.status === undefined).map((a) => a.webhookId)
  await receiver.waitFor(() => receiver.delivered().size >= 20 && unanswered().length > 0, 30_000, 'the child instance at work')
  const interrupted = unanswered()
  const killedAt = Date.now()
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  t.ok(receiver.delivered().size < EVENTS, 'work was left')

  // Another instance takes over: pending deliveries at once, leased ones when their lease runs out.
  const survivor = await build(t, { ...localDelivery, RATE_LIMIT_MAX: 100000 })
  // An answer the receiver wrote just as the child died may count as delivered
  // here; the child never read it, so the survivor must send those events again.
  const madeAgain = (id: string) => receiver.attempts.some((a) => a.webhookId === id && a.receivedAt > killedAt && a.status === 200)
  await receiver.waitFor(() => receiver.delivered().size >= EVENTS && interrupted.every(madeAgain), 60_000, 'every event after the kill')
  const received = new Set([...receiver.delivered().values()].map((a) => JSON.parse(a.body).data.order.id))
  t.same(received, new Set(orderIds), 'every event arrived')
  for (const id of interrupted) t.ok(madeAgain(id), 'an interrupted attempt was made again by the survivor')
  t.same(receiver.overlaps, [], 'never two attempts of one event at once')

  // The log catches up once the last answers are recorded.
  let log: Array<Record<string, any>> = []
  await until(async () => {
    log = []
    let cursor: string | null = ''
    while (cursor !== null) {
      const page = await deliveries(survivor, shop, endpoint.id, `?limit=100${cursor ? `&after=${cursor}` : ''}`)
      log.push(...page.deliveries)
      cursor = page.nextCursor
    }
    return log.every((d) => d.status === 'succeeded')
  }, 30_000, 200)
  t.equal(log.length, EVENTS)
  t.same(log.filter((d) => d.status !== 'succeeded'), [], 'every delivery succeeded')
})
