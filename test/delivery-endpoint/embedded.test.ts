// Delivery requests on the embedded default (PGlite, no Redis): the purchase's
// request, the worker's lease, a failed attempt retried, the answer used, the
// failure event — the same SQL as on Postgres.
import t from 'tap'
import { buildEmbedded, createShop } from '../helper.js'
import { act, buy } from '../fixtures/orders.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { endpointProduct, feed, getOrder, localJustInTime, putDeliveryEndpoint, valuesAnswer, verifiedRequest, waitForRequest } from '../fixtures/delivery-endpoint.js'

t.test('an order is delivered by its endpoint on the embedded database', async (t) => {
  const app = await buildEmbedded(t, localJustInTime)
  t.equal(app.dbConnection.kind, 'pglite')
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  receiver.answer = () => receiver.attempts.length === 1 ? 500 : valuesAnswer(['EMBEDDED-KEY'])
  const { secret } = await putDeliveryEndpoint(app, shop, receiver.url)
  const product = await endpointProduct(app, shop)
  const order = await buy(app, product)
  const request = await waitForRequest(app, shop, order.id, (r) => r.status !== 'pending')
  t.equal(request.status, 'succeeded')
  t.same(request.attempts.map((a: any) => a.statusCode), [500, 200])
  t.equal(verifiedRequest(secret!, receiver.attempts[1]).data.order.id, order.id)
  t.match(await getOrder(app, shop, order.id), { status: 'awaiting_confirmation', assigneeType: 'auto', deliveredValues: ['EMBEDDED-KEY'] })

  receiver.answer = () => 422
  const refused = await buy(app, product)
  t.equal((await waitForRequest(app, shop, refused.id, (r) => r.status !== 'pending')).status, 'failed')
  t.ok((await feed(app, shop)).some((e) => e.type === 'order.delivery_failed' && e.data.order.id === refused.id))
  t.equal((await act(app, shop, refused.id, 'take')).statusCode, 200, 'the order stayed paid for a person')
  const metrics = await app.metrics.getSingleMetricAsString('delivery_request_attempts_total')
  t.match(metrics, /outcome="succeeded"} 1/)
  t.match(metrics, /outcome="retried"} 1/)
  t.match(metrics, /outcome="failed"} 1/)
  t.match(await app.metrics.getSingleMetricAsString('delivery_request_purchase_to_delivery_seconds'), /_count 1/)
})
