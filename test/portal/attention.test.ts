// The portal's Needs attention page (docs/portal.md), where a session lands: each
// count matches a seeded situation and links to its list; the navigation's badges.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { openedClaim } from '../fixtures/claims.js'
import { endpointProduct, localJustInTime, putDeliveryEndpoint } from '../fixtures/delivery-endpoint.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { buy, postAsBuyer } from '../fixtures/orders.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { waitUntil } from '../fixtures/until.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint, deliveries } from '../fixtures/webhooks.js'
import type { App } from '../helper.js'

const page = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const main = (html: string) => html.split('<main')[1]

t.test('Needs attention: each count is a seeded situation, linking to its list', async (t) => {
  const app = await build(t, { ...localJustInTime, VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const nothing = await page(app, session, '/portal/attention')
  t.equal(nothing.statusCode, 200)
  t.match(nothing.body, /Nothing needs you right now/)
  t.notMatch(nothing.body, /class="badge"/)

  // Two paid orders with no stock (delivery off), the buyer of one wrote last.
  const off = await stockProduct(app, shop, { autoDelivery: 'off' })
  const [waiting] = [await buy(app, off), await buy(app, off)]
  t.equal((await postAsBuyer(app, waiting.id, 'Hello?')).statusCode, 201)
  // Stock at 1 of a threshold of 5; its order delivered and claimed.
  const low = await stockProduct(app, shop, { autoDelivery: 'stock', lowStockThreshold: 5 })
  await addValues(app, shop, low.id, ['LOW-STOCK-CODE-1', 'LOW-STOCK-CODE-2'])
  const claimed = await buy(app, low)
  await openedClaim(app, claimed.id)
  // A webhook endpoint whose receiver answers 500 to the test sent to it.
  const failing = await startReceiver(t)
  failing.answer = () => 500
  const endpoint = await createEndpoint(app, shop, { url: failing.url, eventTypes: ['stock.low'] })
  const test = await app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${endpoint.endpoint.id}/test`,
    headers: shop.headers
  })
  t.equal(test.statusCode, 202)
  // The delivery endpoint answers 500 too: its order's request fails (a third paid order waits).
  const supplier = await startReceiver(t)
  supplier.answer = () => 500
  await putDeliveryEndpoint(app, shop, supplier.url)
  await buy(app, await endpointProduct(app, shop))
  await waitUntil('a failed attempt of each endpoint', async () => {
    const sent = await deliveries(app, shop, endpoint.endpoint.id)
    return sent.deliveries.some((d) => d.lastStatusCode === 500) && supplier.attempts.length > 0 &&
      (await page(app, session, '/portal/attention')).body.includes('attention-delivery')
  })

  const res = await page(app, session, '/portal/attention')
  t.equal(res.statusCode, 200)
  const body = main(res.body)
  t.match(body,
    /<a href="\/portal\/orders\?status=paid" id="attention-waiting">Paid orders waiting to be delivered: 3</)
  t.match(body, /<a href="\/portal\/claims#waiting" id="attention-claims">Claims waiting for your answer: 1</)
  t.match(body, /the nearest must be answered by/)
  t.match(body, /<a href="\/portal\/orders\?reply=1" id="attention-unanswered">Orders whose buyer wrote last: 1</)
  t.match(body, /<a href="\/portal\/stock" id="attention-low-stock">Products at or below their low-stock warning: 1</)
  t.match(body, /id="attention-webhooks">Webhook endpoints whose last attempt failed: 1</)
  t.match(body, /id="attention-delivery">The delivery endpoint&#39;s last request failed</)
  t.match(res.body,
    /Orders<\/a> <span class="badge"><span aria-hidden="true">3<\/span><span class="visually-hidden">\(3 waiting\)/)
  t.match(res.body, /Claims<\/a> <span class="badge"><span aria-hidden="true">1<\/span>/)

  const unanswered = await page(app, session, '/portal/orders?reply=1')
  t.same([...unanswered.body.matchAll(/<tr id="order-([0-9a-f-]{36})">/g)].map((m) => m[1]), [waiting.id])
  const replied = await app.inject({
    method: 'POST',
    url: `/portal/orders/${waiting.id}/messages`,
    ...form({ text: 'Soon' }),
    headers: { ...form({}).headers, ...session.headers }
  })
  t.equal(replied.statusCode, 200)
  t.notMatch(main((await page(app, session, '/portal/attention')).body), /attention-unanswered/, 'answered')

  const ru = await enterPortal(app, shop.shopId)
  const russian = await page(app, ru, '/portal/attention')
  t.match(russian.body, /aria-current="page">Требует внимания/)
  t.match(russian.body, /Оплаченные заказы ждут выдачи: 3/)
  const home = await page(app, session, '/portal/')
  t.equal(home.headers.location, '/portal/attention', 'a session lands on Needs attention')
})
