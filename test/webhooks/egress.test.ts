// What an attempt does on the wire: a name that resolves to the service's own
// network is refused when it resolves (and nothing is connected to), redirects
// are not followed, a silent endpoint times out, and a huge answer is not read.
import { setTimeout as pause } from 'node:timers/promises'
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { waitUntil } from '../fixtures/until.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'

/** The endpoint's single delivery once its first attempt is recorded. */
async function firstOutcome (app: App, shop: ShopFixture, endpointId: string) {
  let delivery: Record<string, any> | undefined
  await waitUntil('an attempt recorded', async () => {
    [delivery] = (await deliveries(app, shop, endpointId)).deliveries
    return delivery?.attempts >= 1 && delivery!.lastAttemptAt && (delivery!.lastError !== null || delivery!.status === 'succeeded')
  })
  return delivery!
}

t.test('a name that resolves to a loopback address is refused at delivery time', async (t) => {
  // http:// allowed (the receiver has no TLS), private addresses not.
  const app = await build(t, { ...localDelivery, WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_RETRY_SCHEDULE: '60' })
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  const literal = await app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: shop.headers, payload: { url: receiver.url } })
  t.equal(literal.statusCode, 400, 'the IP literal 127.0.0.1 is refused at creation')
  const { endpoint } = await createEndpoint(app, shop, { url: `http://localhost:${receiver.port}/hooks` })
  await buy(app, await createProduct(app, shop))
  const delivery = await firstOutcome(app, shop, endpoint.id)
  t.match(delivery, { status: 'pending', attempts: 1, lastStatusCode: null })
  t.match(delivery.lastError, /^Not sent: localhost resolves to no public address \((::1|127\.0\.0\.1) is a loopback address/)
  t.equal(receiver.attempts.length, 0, 'nothing reached the receiver')
})

t.test('an IPv4-compatible IPv6 literal of a loopback address is refused at delivery time too', async (t) => {
  // Saved while private addresses were allowed, delivered by an instance that refuses them.
  const lenient = await build(t, { ...localDelivery })
  const shop = await createShop(lenient)
  const receiver = await startReceiver(t)
  const { endpoint } = await createEndpoint(lenient, shop, { url: `http://[::7f00:1]:${receiver.port}/hooks` })
  await lenient.close()
  const app = await build(t, { ...localDelivery, WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_RETRY_SCHEDULE: '60' })
  await buy(app, await createProduct(app, shop))
  const delivery = await firstOutcome(app, shop, endpoint.id)
  t.match(delivery, { status: 'pending', attempts: 1, lastStatusCode: null })
  t.match(delivery.lastError, /^Not sent: the URL must point to a public address \(127\.0\.0\.1 is a loopback address/)
  t.equal(receiver.attempts.length, 0, 'nothing reached the receiver')
})

t.test('redirects are not followed, silence times out, big answers are cut off', async (t) => {
  const app = await build(t, { ...localDelivery, WEBHOOK_TIMEOUT_MS: 500, WEBHOOK_RETRY_SCHEDULE: '60' })
  const shop = await createShop(app)
  const product = await createProduct(app, shop)

  const target = await startReceiver(t)
  const redirecting = await startReceiver(t)
  redirecting.answer = () => (res) => { res.writeHead(307, { location: target.url }).end() }
  const silent = await startReceiver(t)
  silent.answer = () => 'hang'
  const chatty = await startReceiver(t)
  let wholeAnswerSent = false
  chatty.answer = () => (res) => {
    // 64 MB of answer, written as fast as the socket takes it: far more than any
    // socket buffer holds, so it can only all go out if the client reads it.
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.on('finish', () => { wholeAnswerSent = true })
    const chunk = Buffer.alloc(64 * 1024, 'x')
    let left = 1024
    const write = () => {
      while (left > 0 && !res.destroyed) {
        left--
        if (!res.write(chunk)) return res.once('drain', write)
      }
      res.end()
    }
    write()
  }

  const redirect = await createEndpoint(app, shop, { url: redirecting.url })
  const timeout = await createEndpoint(app, shop, { url: silent.url })
  const big = await createEndpoint(app, shop, { url: chatty.url })
  await buy(app, product)

  const redirected = await firstOutcome(app, shop, redirect.endpoint.id)
  t.match(redirected, { status: 'pending', lastStatusCode: 307, lastError: 'HTTP 307: redirects are not followed.' })
  t.equal(target.attempts.length, 0, 'the redirect target was never called')

  const timedOut = await firstOutcome(app, shop, timeout.endpoint.id)
  t.match(timedOut, { status: 'pending', lastStatusCode: null, lastError: 'No answer within 500 ms.' })

  const answered = await firstOutcome(app, shop, big.endpoint.id)
  t.match(answered, { status: 'succeeded', lastStatusCode: 200, lastError: null })
  await pause(200)
  t.equal(wholeAnswerSent, false, 'the answer was cut off after a few KB')
})
