// Webhooks sent to real receivers on 127.0.0.1, signatures checked with the
// `standardwebhooks` package: every kind of event, the kinds filter, the test
// event, retries with one webhook-id, the final `failed`, manual retry, secret
// rotation, disable / enable / delete, and the automatic disabling.
import { setTimeout as pause } from 'node:timers/promises'
import postgres from 'postgres'
import { Webhook } from 'standardwebhooks'
import t from 'tap'
import { build, createShop, fileDatabaseUrl, type App, type ShopFixture } from '../helper.js'
import { act, buy, confirm, postAsBuyer } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver, type ReceivedAttempt } from '../fixtures/webhook-receiver.js'
import { until, waitUntil } from '../fixtures/until.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'

/** The body, if the attempt's signature verifies with `secret` (standardwebhooks throws otherwise). */
function verified (secret: string, attempt: ReceivedAttempt) {
  return new Webhook(secret).verify(attempt.body, attempt.headers as Record<string, string>) as { type: string, timestamp: string, data: any }
}

/** Runs SQL on this file's database: only to make time pass (5 days, 24 hours). */
async function withSql (t: { teardown: (fn: () => unknown) => void }, run: (sql: postgres.Sql) => Promise<unknown>) {
  const sql = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  await run(sql)
}

async function endpointState (app: App, shop: ShopFixture, id: string) {
  return (await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, headers: shop.headers })).json().data.endpoint
}

/** The endpoint's log once every delivery in it has succeeded (answers are recorded just after they are sent). */
async function succeededLog (app: App, shop: ShopFixture, endpointId: string, count: number) {
  let log: Array<Record<string, any>> = []
  await waitUntil(`${count} succeeded deliveries`, async () => {
    log = (await deliveries(app, shop, endpointId, '?limit=100')).deliveries
    return log.length >= count && log.every((d) => d.status === 'succeeded')
  })
  return log
}

async function waitForDelivery (app: App, shop: ShopFixture, endpointId: string, done: (d: Record<string, any>) => boolean, what: string) {
  let found: Record<string, any> | undefined
  await waitUntil(what, async () => {
    found = (await deliveries(app, shop, endpointId, '?limit=100')).deliveries.find(done)
    return found !== undefined
  })
  return found!
}

t.test('every kind of event arrives signed, with the event\'s data', async (t) => {
  const app = await build(t, localDelivery)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { endpoint, secret } = await createEndpoint(app, shop, { url: receiver.url })
  const product = await createProduct(app, shop)
  const manual = await createProduct(app, shop, { external: false })
  await buy(app, manual)

  const first = await buy(app, product)
  t.equal((await act(app, shop, first.id, 'take')).statusCode, 200)
  t.equal((await act(app, shop, first.id, 'deliver', { value: 'KEY-1' })).statusCode, 200)
  t.equal((await confirm(app, first.id)).statusCode, 200)
  const second = await buy(app, product)
  t.equal((await act(app, shop, second.id, 'cancel', { reason: 'out of stock' })).statusCode, 200)
  const sellerPost = await app.inject({ method: 'POST', url: `/v1/orders/${second.id}/messages`, headers: shop.headers, payload: { text: 'Sorry!' } })
  const buyerPost = await postAsBuyer(app, second.id, 'Why?')
  t.equal(sellerPost.statusCode, 201)
  t.equal(buyerPost.statusCode, 201)

  await receiver.waitFor(() => receiver.delivered().size >= 8)
  await pause(300)
  t.equal(receiver.attempts.length, 8, 'one attempt per event; nothing for the order without automation')
  const bodies = receiver.attempts.map((attempt) => {
    t.equal(attempt.headers['content-type'], 'application/json')
    t.match(attempt.headers['webhook-timestamp'], /^\d{10}$/)
    t.ok(Math.abs(Number(attempt.headers['webhook-timestamp']) - attempt.receivedAt / 1000) < 60, 'the timestamp of the attempt')
    const body = verified(secret, attempt)
    t.same(Object.keys(body), ['type', 'timestamp', 'data'])
    return { id: attempt.webhookId, ...body }
  })
  const ofOrder = (orderId: string) => bodies.filter((b) => b.type.startsWith('order.') && b.data.order.id === orderId).map((b) => b.type).sort()
  t.same(ofOrder(first.id), ['order.completed', 'order.delivered', 'order.paid', 'order.taken'])
  t.same(ofOrder(second.id), ['order.cancelled', 'order.paid'])
  const messages = bodies.filter((b) => b.type === 'message.created')
  t.same(messages.map((m) => m.data.message.text).sort(), ['Sorry!', 'Why?'])
  t.same(messages.find((m) => m.data.message.text === 'Sorry!')!.data, { orderId: second.id, message: sellerPost.json().data.message })

  const completed = bodies.find((b) => b.type === 'order.completed')!
  const now = await app.inject({ method: 'GET', url: `/v1/orders/${first.id}`, headers: shop.headers })
  t.same(completed.data, { order: now.json().data.order }, 'data.order is the order as GET /v1/orders/{id} returns it')
  t.equal(bodies.find((b) => b.type === 'order.delivered')!.data.order.deliveredValue, 'KEY-1')
  t.equal(bodies.find((b) => b.type === 'order.taken')!.data.order.status, 'processing')

  const log = await succeededLog(app, shop, endpoint.id, 8)
  t.equal(log.length, 8)
  t.same(new Set(log.map((d) => d.eventId)), new Set(bodies.map((b) => b.id)), 'webhook-id is the delivery\'s eventId')
  for (const d of log) {
    t.match(d, { status: 'succeeded', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null })
    t.equal(bodies.find((b) => b.id === d.eventId)!.timestamp, d.createdAt, 'timestamp is the event\'s createdAt')
  }
})

t.test('kinds filter, events before the endpoint existed, and the test event', async (t) => {
  const app = await build(t, localDelivery)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const before = await buy(app, product)
  const paidOnly = await startReceiver(t)
  const everything = await startReceiver(t)
  const filtered = await createEndpoint(app, shop, { url: paidOnly.url, eventTypes: ['order.paid'] })
  const all = await createEndpoint(app, shop, { url: everything.url })

  const order = await buy(app, product)
  await act(app, shop, order.id, 'take')
  await act(app, shop, before.id, 'take')
  await everything.waitFor(() => everything.delivered().size >= 2)
  await paidOnly.waitFor(() => paidOnly.delivered().size >= 1)
  await pause(300)
  const kinds = (receiver: typeof everything, secret: string) => receiver.attempts.map((a) => {
    const body = verified(secret, a)
    return `${body.type} ${body.data.order.id === order.id ? 'new' : 'old'}`
  }).sort()
  t.same(kinds(everything, all.secret), ['order.paid new', 'order.taken new', 'order.taken old'], 'the old order\'s paid event came before the endpoint')
  t.same(kinds(paidOnly, filtered.secret), ['order.paid new'])

  const test = await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${filtered.endpoint.id}/test`, headers: shop.headers })
  t.equal(test.statusCode, 202)
  const delivery = test.json().data.delivery
  t.match(delivery, { endpointId: filtered.endpoint.id, eventType: 'webhook.test', status: 'pending', attempts: 0 })
  await paidOnly.waitFor(() => paidOnly.delivered().size >= 2)
  const attempt = paidOnly.attempts.find((a) => a.webhookId === delivery.eventId)!
  const body = verified(filtered.secret, attempt)
  t.same(body, { type: 'webhook.test', timestamp: body.timestamp, data: { endpointId: filtered.endpoint.id } }, 'sent whatever the endpoint\'s kinds')
  t.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.notOk(everything.attempts.some((a) => a.webhookId === delivery.eventId), 'to that endpoint only')
  const done = await waitForDelivery(app, shop, filtered.endpoint.id, (d) => d.id === delivery.id && d.status === 'succeeded', 'the test delivery')
  t.equal(done.attempts, 1)
})

t.test('retries keep the webhook-id; the last failure is final; a manual retry sends again', async (t) => {
  const app = await build(t, localDelivery)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { endpoint, secret } = await createEndpoint(app, shop, { url: receiver.url })
  const product = await createProduct(app, shop)
  receiver.answer = () => 503
  const failing = await buy(app, product)
  const failingDelivery = await waitForDelivery(app, shop, endpoint.id, (d) => d.eventType === 'order.paid' && d.status === 'failed', 'a failed delivery')
  const itsAttempts = receiver.attempts.filter((a) => a.webhookId === failingDelivery.eventId)
  t.equal(itsAttempts.length, 4, 'four attempts: the first and the three of WEBHOOK_RETRY_SCHEDULE')
  t.match(failingDelivery, { attempts: 4, lastStatusCode: 503, lastError: 'HTTP 503.', nextAttemptAt: null })
  for (const attempt of itsAttempts) t.equal(verified(secret, attempt).data.order.id, failing.id, 'every attempt signed, same webhook-id')
  for (let i = 1; i < itsAttempts.length; i++) {
    t.ok(itsAttempts[i].receivedAt - itsAttempts[i - 1].receivedAt >= 150, 'attempts are spaced by the schedule (0.2 s ± 10 %)')
  }

  receiver.answer = () => 200
  const retry = await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/deliveries/${failingDelivery.id}/retry`, headers: shop.headers })
  t.equal(retry.statusCode, 202)
  t.match(retry.json().data.delivery, { id: failingDelivery.id, status: 'pending', attempts: 4 })
  t.type(retry.json().data.delivery.nextAttemptAt, 'string')
  const retried = await waitForDelivery(app, shop, endpoint.id, (d) => d.id === failingDelivery.id && d.status === 'succeeded', 'the manual retry')
  t.match(retried, { attempts: 5, lastStatusCode: 200, lastError: null })
  const afterRetry = receiver.attempts.filter((a) => a.webhookId === failingDelivery.eventId)
  t.equal(afterRetry.length, 5)
  t.equal(afterRetry[4].status, 200)

  const again = await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/deliveries/${failingDelivery.id}/retry`, headers: shop.headers })
  t.equal(again.statusCode, 202, 'a succeeded delivery can be retried too')
  await receiver.waitFor(() => receiver.attempts.filter((a) => a.webhookId === failingDelivery.eventId).length === 6)
  t.equal(verified(secret, receiver.attempts.filter((a) => a.webhookId === failingDelivery.eventId)[5]).type, 'order.paid')
})

t.test('a failing attempt then a success, with the same webhook-id', async (t) => {
  const app = await build(t, localDelivery)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { endpoint, secret } = await createEndpoint(app, shop, { url: receiver.url })
  const product = await createProduct(app, shop)
  const seen = new Map<string, number>()
  receiver.answer = (attempt) => {
    const n = (seen.get(attempt.webhookId) ?? 0) + 1
    seen.set(attempt.webhookId, n)
    return n <= 2 ? 500 : 204
  }
  await buy(app, product)
  await receiver.waitFor(() => receiver.delivered().size === 1)
  t.equal(receiver.attempts.length, 3)
  t.equal(new Set(receiver.attempts.map((a) => a.webhookId)).size, 1, 'one webhook-id on every attempt')
  const bodies = receiver.attempts.map((a) => verified(secret, a))
  t.same(bodies[2], bodies[0], 'the same body every time')
  const [delivery] = await succeededLog(app, shop, endpoint.id, 1)
  t.match(delivery, { status: 'succeeded', attempts: 3, lastStatusCode: 204, lastError: null, nextAttemptAt: null })
})

t.test('rotation: both secrets sign for 24 hours; a second rotation drops the oldest', async (t) => {
  const app = await build(t, localDelivery)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { endpoint, secret: first } = await createEndpoint(app, shop, { url: receiver.url })
  const product = await createProduct(app, shop)
  const rotate = async () => (await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, headers: shop.headers })).json().data.secret as string

  const second = await rotate()
  await buy(app, product)
  await receiver.waitFor(() => receiver.delivered().size === 1)
  const during = receiver.attempts[0]
  t.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'two signatures')
  t.equal(verified(first, during).type, 'order.paid', 'the previous secret verifies')
  t.equal(verified(second, during).type, 'order.paid', 'the new secret verifies')

  const third = await rotate()
  await buy(app, product)
  await receiver.waitFor(() => receiver.delivered().size === 2)
  const later = receiver.attempts[1]
  t.equal(String(later.headers['webhook-signature']).split(' ').length, 2)
  t.ok(verified(third, later) && verified(second, later))
  t.throws(() => verified(first, later), 'the secret before the previous one no longer signs')

  await withSql(t, (sql) => sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${endpoint.id}`)
  await buy(app, product)
  await receiver.waitFor(() => receiver.delivered().size === 3)
  const after = receiver.attempts[2]
  t.equal(String(after.headers['webhook-signature']).split(' ').length, 1, 'after 24 hours, one signature')
  t.ok(verified(third, after))
  t.throws(() => verified(second, after))
})

t.test('disable, enable and delete decide which events are sent', async (t) => {
  const app = await build(t, { ...localDelivery, WEBHOOK_RETRY_SCHEDULE: '60' })
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { endpoint, secret } = await createEndpoint(app, shop, { url: receiver.url })
  const product = await createProduct(app, shop)
  const patch = (payload: object) => app.inject({ method: 'PATCH', url: `/v1/webhook-endpoints/${endpoint.id}`, headers: shop.headers, payload })

  receiver.answer = () => 500
  const retrying = await buy(app, product)
  await waitForDelivery(app, shop, endpoint.id, (d) => d.attempts === 1 && d.status === 'pending' && d.lastStatusCode === 500, 'a delivery waiting for its retry')
  t.equal((await patch({ enabled: false })).statusCode, 200)
  const [ended] = (await deliveries(app, shop, endpoint.id)).deliveries
  t.match(ended, { status: 'failed', attempts: 1, nextAttemptAt: null, lastError: 'Not sent: the endpoint was disabled.' })

  receiver.answer = () => 200
  const whileDisabled = await buy(app, product)
  t.equal((await deliveries(app, shop, endpoint.id)).deliveries.length, 1, 'no delivery for an event while disabled')
  t.equal((await patch({ enabled: true })).statusCode, 200)
  const afterwards = await buy(app, product)
  await receiver.waitFor(() => receiver.delivered().size === 1)
  await pause(300)
  const sent = receiver.attempts.filter((a) => a.status === 200).map((a) => verified(secret, a).data.order.id)
  t.same(sent, [afterwards.id], 'only the event after re-enabling')
  t.notOk(sent.includes(whileDisabled.id) || sent.includes(retrying.id))

  t.equal((await app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${endpoint.id}`, headers: shop.headers })).statusCode, 200)
  const count = receiver.attempts.length
  await buy(app, product)
  await pause(500)
  t.equal(receiver.attempts.length, count, 'nothing after deletion')
})

t.test('an endpoint that has failed for 5 days is disabled; enabling it resumes', async (t) => {
  const app = await build(t, { ...localDelivery, WEBHOOK_RETRY_SCHEDULE: '60' })
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { endpoint } = await createEndpoint(app, shop, { url: receiver.url })
  const product = await createProduct(app, shop)
  receiver.answer = () => 500

  await buy(app, product)
  await waitForDelivery(app, shop, endpoint.id, (d) => d.attempts === 1 && d.status === 'pending', 'the first failure')
  t.equal((await endpointState(app, shop, endpoint.id)).enabled, true, 'one failure disables nothing')
  // Five days pass with nothing but failures.
  await withSql(t, (sql) => sql`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where id = ${endpoint.id}`)
  await buy(app, product)
  await until(async () => !(await endpointState(app, shop, endpoint.id)).enabled, 20_000, 50)
  const disabled = await endpointState(app, shop, endpoint.id)
  t.equal(disabled.enabled, false)
  t.match(disabled.disabledReason, /^Every delivery attempt since \d{4}-.* failed \(last: HTTP 500\.\)/)
  const log = (await deliveries(app, shop, endpoint.id)).deliveries
  t.same(log.map((d) => d.status), ['failed', 'failed'], 'the pending delivery is ended too')

  await buy(app, product)
  t.equal((await deliveries(app, shop, endpoint.id)).deliveries.length, 2, 'nothing queued while disabled')
  receiver.answer = () => 200
  const enabled = await app.inject({ method: 'PATCH', url: `/v1/webhook-endpoints/${endpoint.id}`, headers: shop.headers, payload: { enabled: true } })
  t.match(enabled.json().data.endpoint, { enabled: true, disabledReason: null })
  await buy(app, product)
  await receiver.waitFor(() => receiver.delivered().size === 1)
})

t.test('a shutdown cuts a hanging attempt short and hands the delivery back', async (t) => {
  // The lease (the timeout + 5 s) outlasts the wait for the second attempt: only a handed-back delivery is in time.
  const first = await build(t, { ...localDelivery, WEBHOOK_RETRY_SCHEDULE: '60', WEBHOOK_TIMEOUT_MS: 30_000 })
  const shop = await createShop(first)
  const receiver = await startReceiver(t)
  const { endpoint } = await createEndpoint(first, shop, { url: receiver.url })
  const product = await createProduct(first, shop)
  receiver.answer = () => 'hang'
  await buy(first, product)
  await receiver.waitFor(() => receiver.inFlight() === 1)
  const closing = Date.now()
  await first.close()
  t.ok(Date.now() - closing < 15_000, 'close waits a bounded time for attempts in flight')

  receiver.answer = () => 200
  const second = await build(t, { ...localDelivery, WEBHOOK_TIMEOUT_MS: 30_000 })
  await receiver.waitFor((attempts) => attempts.length === 2, 15_000, 'the second attempt, well before the first lease ends')
  const delivery = await waitForDelivery(second, shop, endpoint.id, (d) => d.status === 'succeeded', 'the handed-back delivery')
  t.equal(delivery.attempts, 2, 'the cut attempt counts, and the next instance made the second at once')
  t.equal(receiver.delivered().size, 1)
})
