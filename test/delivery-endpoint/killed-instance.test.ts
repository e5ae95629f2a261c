// An instance killed (SIGKILL) while its delivery requests wait for answers: the
// leases run out, another instance asks again with the same webhook-id, and
// every order is delivered once, with one answer's values.
import t from 'tap'
import { buyOverHttp } from '../fixtures/orders.js'
import { build, createShop } from '../helper.js'
import { startReceiver, type ReceivedAttempt } from '../fixtures/webhook-receiver.js'
import { fileServerEnv, startServerProcess } from '../fixtures/server-process.js'
import { endpointProduct, feed, getOrder, localJustInTime, putDeliveryEndpoint, valuesAnswer, waitForRequest } from '../fixtures/delivery-endpoint.js'

const ORDERS = 40

t.test('an instance killed mid-attempt: every order delivered once', async (t) => {
  const receiver = await startReceiver(t)
  receiver.delayMs = 200
  const answered = new Map<ReceivedAttempt, string[]>()
  receiver.answer = (attempt) => {
    const values = [`V-${answered.size}-${Math.random().toString(36).slice(2)}`]
    answered.set(attempt, values)
    return valuesAnswer(values)
  }
  const setup = await build(t, localJustInTime)
  const shop = await createShop(setup)
  const product = await endpointProduct(setup, shop)
  await putDeliveryEndpoint(setup, shop, receiver.url)
  await setup.close()

  const { child, port } = await startServerProcess(t, await fileServerEnv({
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '1000',
    DELIVERY_TIMEOUT_MS: '1000',
    DELIVERY_RETRY_SCHEDULE: '0.2,0.2'
  }))
  const orderIds = await buyOverHttp(port, product, ORDERS)
  const unanswered = () => receiver.attempts.filter((a) => a.status === undefined).map((a) => a.webhookId)
  await receiver.waitFor(() => receiver.attempts.length >= 8 && unanswered().length > 0, 30_000, 'the child instance at work')
  const interrupted = unanswered()
  const killedAt = Date.now()
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))

  const survivor = await build(t, localJustInTime)
  for (const id of orderIds) await waitForRequest(survivor, shop, id, (r) => r.status !== 'pending', 'every request after the kill')
  const events = await feed(survivor, shop)
  for (const id of orderIds) {
    const request = await waitForRequest(survivor, shop, id, () => true)
    const order = await getOrder(survivor, shop, id)
    t.equal(request.status, 'succeeded')
    t.equal(events.filter((e) => e.type === 'order.delivered' && e.data.order.id === id).length, 1, 'one order.delivered')
    const answers = [...answered].filter(([a]) => a.webhookId === request.id).map(([, v]) => JSON.stringify(v))
    t.ok(answers.includes(JSON.stringify(order.deliveredValues)), 'one answer\'s values')
  }
  for (const id of interrupted) {
    t.ok(receiver.attempts.some((a) => a.webhookId === id && a.receivedAt > killedAt), 'an interrupted request was asked again, same webhook-id')
  }
  t.same(receiver.overlaps, [], 'never two attempts of one request at once')
})
