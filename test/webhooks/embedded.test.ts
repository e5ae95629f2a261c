// The worker on the embedded default (PGlite, no Redis): the same queue SQL
// (SKIP LOCKED leases, retries, the test call) delivers there too.
import { Webhook } from 'standardwebhooks'
import t from 'tap'
import { buildEmbedded, createShop } from '../helper.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { until } from '../fixtures/until.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'

t.test('webhooks are delivered on the embedded database', async (t) => {
  const app = await buildEmbedded(t, localDelivery)
  t.equal(app.dbConnection.kind, 'pglite')
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  let first = true
  receiver.answer = () => {
    if (!first) return 200
    first = false
    return 500
  }
  const { endpoint, secret } = await createEndpoint(app, shop, { url: receiver.url })
  const order = await buy(app, await createProduct(app, shop))
  const test = await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/test`, headers: shop.headers })
  t.equal(test.statusCode, 202)

  await receiver.waitFor(() => receiver.delivered().size === 2)
  const bodies = [...receiver.delivered().values()].map((a) => new Webhook(secret).verify(a.body, a.headers as Record<string, string>) as { type: string, data: any })
  t.same(bodies.map((b) => b.type).sort(), ['order.paid', 'webhook.test'])
  t.equal(bodies.find((b) => b.type === 'order.paid')!.data.order.id, order.id)
  t.equal(receiver.attempts.length, 3, 'the first attempt failed and was retried')
  let log: Array<Record<string, any>> = []
  await until(async () => {
    log = (await deliveries(app, shop, endpoint.id)).deliveries
    return log.every((d) => d.status === 'succeeded')
  }, 10_000, 50)
  t.same(log.map((d) => d.status), ['succeeded', 'succeeded'])
  t.same(log.map((d) => d.attempts).sort(), [1, 2])
})
