// Exactly once (docs/delivery-endpoint.md): whichever instance asks and however
// many answers arrive, an order is delivered once, with one answer's values, and
// its request's attempts tell what happened — two instances and a slow
// receiver, a retry racing a late answer, a take racing the answer; and a
// receiver that never answers holds up no other shop.
import { setTimeout as pause } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { act, buy } from '../fixtures/orders.js'
import { startReceiver, type ReceivedAttempt } from '../fixtures/webhook-receiver.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import { endpointProduct, feed, getOrder, localJustInTime, putDeliveryEndpoint, valuesAnswer, waitForRequest } from '../fixtures/delivery-endpoint.js'

const ended = (r: Record<string, any>) => r.status !== 'pending'

/** Each attempt answers values of its own, so the order tells which answer delivered it. */
const valuesOf = (attempt: ReceivedAttempt) => [`V-${attempt.webhookId.slice(0, 8)}-${attempt.receivedAt}-${Math.random().toString(36).slice(2)}`]

/** Answers with values unique to the attempt, remembering them by attempt. */
function uniqueAnswers (answered: Map<ReceivedAttempt, string[]>) {
  return (attempt: ReceivedAttempt) => {
    const values = valuesOf(attempt)
    answered.set(attempt, values)
    return valuesAnswer(values)
  }
}

/** One order: delivered once (one order.delivered, no order.taken) with the values one answer gave for its request. */
async function assertDeliveredOnce (t: Test, app: App, shop: ShopFixture, orderId: string, answered: Map<ReceivedAttempt, string[]>, events: Array<{ type: string, data: any }>) {
  const request = await waitForRequest(app, shop, orderId, ended)
  const order = await getOrder(app, shop, orderId)
  t.equal(request.status, 'succeeded', `${orderId}: succeeded`)
  t.equal(order.status, 'awaiting_confirmation')
  const answers = [...answered].filter(([a]) => a.webhookId === request.id).map(([, values]) => JSON.stringify(values))
  t.ok(answers.includes(JSON.stringify(order.deliveredValues)), 'the values of one answer to this request')
  t.equal(events.filter((e) => e.type === 'order.delivered' && e.data.order.id === orderId).length, 1, 'one order.delivered')
  t.equal(request.attempts.filter((a: any) => a.error === null).length, 1, 'one attempt used')
}

t.test('two instances, a slow receiver: every order delivered once', async (t) => {
  const a = await build(t, localJustInTime)
  const b = await build(t, localJustInTime)
  const shop = await createShop(a)
  const receiver = await startReceiver(t)
  receiver.delayMs = 150
  const answered = new Map<ReceivedAttempt, string[]>()
  receiver.answer = uniqueAnswers(answered)
  await putDeliveryEndpoint(a, shop, receiver.url)
  const product = await endpointProduct(a, shop)
  const orders = await Promise.all(Array.from({ length: 24 }, (_, i) => buy(i % 2 === 0 ? a : b, product)))
  for (const order of orders) await waitForRequest(a, shop, order.id, ended)
  const events = await feed(a, shop)
  for (const order of orders) await assertDeliveredOnce(t, a, shop, order.id, answered, events)
  t.same(receiver.overlaps, [], 'never two attempts of one request at once')
  t.equal(receiver.attempts.length, orders.length, 'one attempt each')
})

t.test('a retry racing a late answer: delivered once, one retry accepted', async (t) => {
  const app = await build(t, { ...localJustInTime, DELIVERY_TIMEOUT_MS: 400, DELIVERY_RETRY_SCHEDULE: '0.1' })
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const answered = new Map<ReceivedAttempt, string[]>()
  const unique = uniqueAnswers(answered)
  // The first round answers just around the timeout: some answers come too late to be read.
  receiver.answer = (attempt) => (res) => { pause(380 + Math.random() * 40).then(() => unique(attempt)(res), () => {}) }
  await putDeliveryEndpoint(app, shop, receiver.url)
  const product = await endpointProduct(app, shop)
  const orders = await Promise.all(Array.from({ length: 6 }, () => buy(app, product)))
  const events: Array<{ type: string, data: any }> = []
  let retried = 0
  for (const order of orders) {
    const first = await waitForRequest(app, shop, order.id, ended)
    // The fresh round is answered at once.
    receiver.answer = unique
    if (first.status === 'failed') {
      // Two retries at once: one starts the fresh round, the other is refused.
      const retries = await Promise.all([0, 1].map(() => app.inject({ method: 'POST', url: `/v1/orders/${order.id}/delivery-request/retry`, headers: shop.headers })))
      t.same(retries.map((r) => r.statusCode).sort(), [202, 409], 'one retry accepted')
      retried++
    }
  }
  t.comment(`${retried} of ${orders.length} retried`)
  for (const order of orders) await waitForRequest(app, shop, order.id, (r) => r.status === 'succeeded')
  events.push(...await feed(app, shop))
  for (const order of orders) await assertDeliveredOnce(t, app, shop, order.id, answered, events)
  t.same(receiver.overlaps, [])
})

t.test('a take racing the answer: the order ends taken or delivered, never both', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const answered = new Map<ReceivedAttempt, string[]>()
  const unique = uniqueAnswers(answered)
  receiver.answer = (attempt) => (res) => { pause(Math.random() * 30).then(() => unique(attempt)(res), () => {}) }
  await putDeliveryEndpoint(app, shop, receiver.url)
  const product = await endpointProduct(app, shop)
  const orders = await Promise.all(Array.from({ length: 20 }, async () => {
    const order = await buy(app, product)
    await pause(Math.random() * 200)
    return { order, take: await act(app, shop, order.id, 'take') }
  }))
  const events: Array<{ type: string, data: any }> = []
  for (const { order } of orders) await waitForRequest(app, shop, order.id, ended)
  events.push(...await feed(app, shop))
  let taken = 0
  for (const { order, take } of orders) {
    const request = await waitForRequest(app, shop, order.id, ended)
    const final = await getOrder(app, shop, order.id)
    const kinds = events.filter((e) => e.data.order?.id === order.id).map((e) => e.type)
    if (take.statusCode === 200) {
      taken++
      t.match(final, { status: 'processing', assigneeType: 'api', deliveredValues: [] }, 'taken: no values')
      t.equal(request.status, 'discarded', 'taken: the request discarded')
      t.same(kinds, ['order.paid', 'order.taken'])
    } else {
      t.equal(take.statusCode, 409)
      await assertDeliveredOnce(t, app, shop, order.id, answered, events)
      t.same(kinds, ['order.paid', 'order.delivered'])
    }
  }
  t.comment(`${taken} of ${orders.length} taken first`)
})

t.test('an endpoint that never answers holds up no other shop and no API call', async (t) => {
  const app = await build(t, { ...localJustInTime, DELIVERY_TIMEOUT_MS: 5000 })
  const stuck = await createShop(app, 'Stuck shop')
  const fine = await createShop(app, 'Fine shop')
  const hanging = await startReceiver(t)
  hanging.answer = () => 'hang'
  const garbage = await startReceiver(t)
  garbage.answer = () => (res) => res.writeHead(200).end('{"values": 1')
  const good = await startReceiver(t)
  const answered = new Map<ReceivedAttempt, string[]>()
  good.answer = uniqueAnswers(answered)
  const hooks = await startReceiver(t)
  await putDeliveryEndpoint(app, stuck, hanging.url)
  await putDeliveryEndpoint(app, fine, good.url)
  await createEndpoint(app, fine, { url: hooks.url })
  const stuckProduct = await endpointProduct(app, stuck)
  const fineProduct = await endpointProduct(app, fine)
  const stuckOrders = await Promise.all(Array.from({ length: 20 }, () => buy(app, stuckProduct)))
  await hanging.waitFor((a) => a.length >= 1)

  const fineOrders = await Promise.all(Array.from({ length: 10 }, () => buy(app, fineProduct)))
  for (const order of fineOrders) await waitForRequest(app, fine, order.id, (r) => r.status === 'succeeded')
  await hooks.waitFor((a) => a.length >= 20, 20_000, 'the other shop\'s webhooks')
  const list = await app.inject({ method: 'GET', url: '/v1/orders', headers: stuck.headers })
  t.equal(list.statusCode, 200, 'the stuck shop\'s own API calls are answered')
  t.equal(list.json().data.total, 20)
  const stillPending = await waitForRequest(app, stuck, stuckOrders[0].id, () => true)
  t.equal(stillPending.status, 'pending', 'the stuck shop\'s requests still wait for their answers')
  t.ok(hanging.inFlight() <= 4, 'a hanging endpoint holds its few places only')

  // A garbage-answering endpoint: its requests fail; the good shop is served meanwhile.
  await putDeliveryEndpoint(app, stuck, garbage.url)
  const more = await Promise.all(Array.from({ length: 5 }, () => buy(app, fineProduct)))
  for (const order of more) await waitForRequest(app, fine, order.id, (r) => r.status === 'succeeded')
  const events = await feed(app, fine)
  for (const order of [...fineOrders, ...more]) await assertDeliveredOnce(t, app, fine, order.id, answered, events)
})
