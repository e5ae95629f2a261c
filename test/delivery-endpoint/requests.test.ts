// Delivery requests to a real receiver on 127.0.0.1 (docs/delivery-endpoint.md),
// signatures checked with `standardwebhooks`: the request written with the
// purchase, its body and webhook-id, a valid answer delivering the order once,
// failed attempts and their words, 409 / 422, the final `failed` with
// order.delivery_failed, retry, `discarded`, a replaced url, a deleted endpoint.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { act, buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import {
  deliveryRequest, endpointProduct, feed, getOrder, localJustInTime, putDeliveryEndpoint, valuesAnswer, verifiedRequest, waitForRequest
} from '../fixtures/delivery-endpoint.js'

const ended = (r: Record<string, any>) => r.status !== 'pending'

t.test('a purchase asks the endpoint, signed; a valid answer delivers the order once', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const webhooks = await startReceiver(t)
  const { secret } = await putDeliveryEndpoint(app, shop, receiver.url)
  t.ok(secret?.startsWith('whsec_'), 'the secret, on creation')
  await createEndpoint(app, shop, { url: webhooks.url })
  receiver.answer = () => valuesAnswer(['KEY-AAAA', 'KEY-BBBB'])
  const product = await endpointProduct(app, shop)

  const order = await buy(app, product, { quantity: 2 })
  t.equal(order.status, 'paid', 'the purchase answers with the paid order')
  const request = await waitForRequest(app, shop, order.id, ended)
  t.equal(request.status, 'succeeded')
  t.equal(request.orderId, order.id)
  t.equal(request.nextAttemptAt, null)
  t.equal(request.attempts.length, 1)
  t.match(request.attempts[0], { statusCode: 200, error: null })
  t.type(request.attempts[0].durationMs, 'number')

  t.equal(receiver.attempts.length, 1)
  const attempt = receiver.attempts[0]
  t.equal(attempt.webhookId, request.id, 'webhook-id = the request id')
  const body = verifiedRequest(secret!, attempt)
  t.equal(body.type, 'order.delivery_requested')
  t.equal(body.timestamp, request.createdAt, 'timestamp: when the request was created')
  t.equal(body.data.test, false)
  t.match(body.data.order, { id: order.id, status: 'paid', quantity: 2, productId: product.id })

  const delivered = await getOrder(app, shop, order.id)
  t.match(delivered, { status: 'awaiting_confirmation', assigneeType: 'auto', deliveredValues: ['KEY-AAAA', 'KEY-BBBB'] })
  t.ok(delivered.takenAt !== null && delivered.takenAt === delivered.deliveredAt, 'takenAt = deliveredAt')
  const events = (await feed(app, shop)).filter((e) => e.data.order?.id === order.id)
  t.same(events.map((e) => e.type), ['order.paid', 'order.delivered'])
  t.same(events[1].data.order.deliveredValues, ['KEY-AAAA', 'KEY-BBBB'])

  // Webhook endpoints get events, never requests; the delivery endpoint gets requests only.
  await webhooks.waitFor((a) => a.length >= 2)
  t.same(webhooks.attempts.map((a) => JSON.parse(a.body).type).sort(), ['order.delivered', 'order.paid'])
  t.same(receiver.attempts.map((a) => JSON.parse(a.body).type), ['order.delivery_requested'])
  const list = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: shop.headers })
  t.equal(list.json().data.endpoints.length, 1, 'the delivery endpoint is not a webhook endpoint')
})

t.test('failed attempts are retried with one webhook-id and said in words; then the answer is used', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const { secret } = await putDeliveryEndpoint(app, shop, receiver.url)
  const answers = [
    (res: any) => res.writeHead(500).end('SECRET-IN-ERROR-PAGE'),
    (res: any) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"values": ["KEY-1", 7, ""]}'),
    valuesAnswer(['KEY-OK'])
  ]
  receiver.answer = () => answers[receiver.attempts.length - 1]
  const product = await endpointProduct(app, shop)
  const order = await buy(app, product)
  const request = await waitForRequest(app, shop, order.id, ended)
  t.equal(request.status, 'succeeded')
  t.same(request.attempts.map((a: any) => a.statusCode), [500, 200, 200])
  t.match(request.attempts[0].error, /HTTP 500/)
  t.match(request.attempts[1].error, /not a string/)
  t.match(request.attempts[1].error, /empty/)
  t.equal(request.attempts[2].error, null)
  t.notMatch(JSON.stringify(request), /KEY-1|SECRET-IN-ERROR-PAGE/, 'no value of an answer in the log')
  t.equal(new Set(receiver.attempts.map((a) => a.webhookId)).size, 1, 'the same webhook-id on every attempt')
  for (const attempt of receiver.attempts) t.equal(verifiedRequest(secret!, attempt).data.order.id, order.id)
  t.same((await getOrder(app, shop, order.id)).deliveredValues, ['KEY-OK'])
})

t.test('after the last failed attempt: failed, order.delivery_failed, the order stays paid; retry starts a fresh round', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  receiver.answer = () => (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('not json')
  const product = await endpointProduct(app, shop)
  const order = await buy(app, product)
  const failed = await waitForRequest(app, shop, order.id, ended)
  t.equal(failed.status, 'failed')
  t.equal(failed.attempts.length, 3, 'DELIVERY_RETRY_SCHEDULE 0.2,0.2: 3 attempts')
  t.equal(failed.nextAttemptAt, null)
  t.match(failed.attempts[2].error, /not JSON/)
  t.equal((await getOrder(app, shop, order.id)).status, 'paid')
  const failure = (await feed(app, shop)).filter((e) => e.type === 'order.delivery_failed')
  t.equal(failure.length, 1)
  t.equal(failure[0].data.order.id, order.id)
  t.equal(failure[0].data.order.status, 'paid')
  t.equal(failure[0].data.reason, failed.attempts[2].error, 'the reason is the last error')

  receiver.answer = () => valuesAnswer(['LATE-KEY'])
  const retry = await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/delivery-request/retry`, headers: shop.headers })
  t.equal(retry.statusCode, 202)
  t.equal(retry.json().data.deliveryRequest.status, 'pending')
  const succeeded = await waitForRequest(app, shop, order.id, (r) => r.status === 'succeeded')
  t.equal(succeeded.attempts.length, 4, 'the attempts list keeps the earlier round')
  t.same((await getOrder(app, shop, order.id)).deliveredValues, ['LATE-KEY'])

  const again = await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/delivery-request/retry`, headers: shop.headers })
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'ORDER_INVALID_STATUS', 'retry only from failed')
})

t.test('409 and 422 mean "cannot supply": failed at once; retry needs the order paid', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  const product = await endpointProduct(app, shop)
  for (const status of [409, 422]) {
    receiver.answer = () => status
    const order = await buy(app, product)
    const request = await waitForRequest(app, shop, order.id, ended)
    t.equal(request.status, 'failed', `${status}`)
    t.equal(request.attempts.length, 1, `${status}: no further attempt`)
    t.match(request.attempts[0].error, /cannot supply/)
    t.equal((await getOrder(app, shop, order.id)).status, 'paid')
    if (status === 422) {
      t.equal((await act(app, shop, order.id, 'take')).statusCode, 200)
      const retry = await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/delivery-request/retry`, headers: shop.headers })
      t.equal(retry.statusCode, 409, 'retry only while the order is paid')
      t.equal(retry.json().error.code, 'ORDER_INVALID_STATUS')
    }
  }
  t.equal((await feed(app, shop)).filter((e) => e.type === 'order.delivery_failed').length, 2)
})

t.test('a redirect and a timeout are failed attempts', async (t) => {
  const app = await build(t, { ...localJustInTime, DELIVERY_TIMEOUT_MS: 300, DELIVERY_RETRY_SCHEDULE: '0.1' })
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  receiver.answer = () => receiver.attempts.length === 1
    ? (res) => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end()
    : 'hang'
  const product = await endpointProduct(app, shop)
  const order = await buy(app, product)
  const request = await waitForRequest(app, shop, order.id, ended)
  t.equal(request.status, 'failed')
  t.equal(request.attempts[0].statusCode, 302)
  t.match(request.attempts[0].error, /redirect/)
  t.equal(request.attempts[1].statusCode, null)
  t.match(request.attempts[1].error, /No answer within 300 ms/)
})

t.test('an answer for an order taken meanwhile is discarded, the order untouched', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  receiver.answer = () => (res) => { held.then(() => valuesAnswer(['TOO-LATE'])(res), () => {}) }
  const product = await endpointProduct(app, shop)
  const order = await buy(app, product)
  await receiver.waitFor((a) => a.length === 1)
  t.equal((await act(app, shop, order.id, 'take')).statusCode, 200, 'taken while the endpoint thinks')
  release()
  const request = await waitForRequest(app, shop, order.id, ended)
  t.equal(request.status, 'discarded')
  t.match(request.attempts[0].error, /processing, no longer paid/)
  t.notMatch(JSON.stringify(request), /TOO-LATE/)
  t.match(await getOrder(app, shop, order.id), { status: 'processing', assigneeType: 'api', deliveredValues: [] })
  const retry = await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/delivery-request/retry`, headers: shop.headers })
  t.equal(retry.statusCode, 409)

  // An order cancelled before its attempt: nothing is asked of the seller.
  receiver.answer = () => 'hang'
  await app.inject({ method: 'PUT', url: '/v1/delivery-endpoint', headers: shop.headers, payload: { url: 'http://127.0.0.1:9/never' } })
  const cancelled = await buy(app, product)
  t.equal((await act(app, shop, cancelled.id, 'cancel', { reason: 'changed mind' })).statusCode, 200)
  const notSent = await waitForRequest(app, shop, cancelled.id, ended)
  t.ok(['discarded', 'failed'].includes(notSent.status), `ended ${notSent.status}`)
})

t.test('a replaced url applies from the next attempt; a deleted endpoint fails its pending requests', async (t) => {
  const app = await build(t, { ...localJustInTime, DELIVERY_RETRY_SCHEDULE: '0.3,0.3,0.3' })
  const shop = await createShop(app)
  const first = await startReceiver(t)
  const second = await startReceiver(t)
  const created = await putDeliveryEndpoint(app, shop, first.url)
  first.answer = () => 503
  second.answer = () => valuesAnswer(['FROM-SECOND'])
  const product = await endpointProduct(app, shop)
  const order = await buy(app, product)
  await first.waitFor((a) => a.length >= 1 && a[0].status !== undefined)
  const replaced = await putDeliveryEndpoint(app, shop, second.url)
  t.equal(replaced.secret, undefined, 'no secret on a replacement')
  t.equal(replaced.deliveryEndpoint.url, second.url)
  t.equal(replaced.deliveryEndpoint.createdAt, created.deliveryEndpoint.createdAt)
  const request = await waitForRequest(app, shop, order.id, ended)
  t.equal(request.status, 'succeeded')
  t.equal(second.attempts[0].webhookId, first.attempts[0].webhookId, 'the same request, at the new url')
  verifiedRequest(created.secret!, second.attempts[0])

  second.answer = () => 'hang'
  const pending = await buy(app, product)
  await second.waitFor((a) => a.some((x) => x.webhookId !== first.attempts[0].webhookId))
  const deleted = await app.inject({ method: 'DELETE', url: '/v1/delivery-endpoint', headers: shop.headers })
  t.equal(deleted.statusCode, 200)
  t.equal(deleted.json().data.deliveryEndpoint.url, second.url)
  const failed = await waitForRequest(app, shop, pending.id, ended)
  t.equal(failed.status, 'failed')
  t.equal(failed.nextAttemptAt, null)
  const event = (await feed(app, shop)).find((e) => e.type === 'order.delivery_failed' && e.data.order.id === pending.id)
  t.match(event?.data.reason, /deleted/)
  t.equal((await getOrder(app, shop, pending.id)).status, 'paid')

  // No endpoint: purchases simply stay paid, with no request.
  const after = await buy(app, product)
  const none = await deliveryRequest(app, shop, after.id)
  t.equal(none.statusCode, 404)
  t.equal(none.json().error.code, 'NOT_FOUND')
  const retry = await app.inject({ method: 'POST', url: `/v1/orders/${failed.orderId}/delivery-request/retry`, headers: shop.headers })
  t.equal(retry.statusCode, 404, 'no endpoint to retry to')
  t.equal(retry.json().error.code, 'NOT_FOUND')
})

t.test('only products with autoDelivery endpoint make requests; other shops see nothing', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  const plain = await createProduct(app, shop)
  const order = await buy(app, plain)
  const res = await deliveryRequest(app, shop, order.id)
  t.equal(res.statusCode, 404)
  t.equal(res.json().error.code, 'NOT_FOUND')
  const product = await endpointProduct(app, shop)
  receiver.answer = () => valuesAnswer(['K'])
  const sold = await buy(app, product)
  await waitForRequest(app, shop, sold.id, ended)
  const foreign = await deliveryRequest(app, other, sold.id)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'ORDER_NOT_FOUND')
  const unknown = await deliveryRequest(app, shop, '00000000-0000-4000-8000-000000000000')
  t.equal(unknown.json().error.code, 'ORDER_NOT_FOUND')
  t.equal(receiver.attempts.length, 1)
})
