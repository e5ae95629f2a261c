// The portal's pages act through the API's own actions (docs/portal.md): what a
// page does is what the /v1 (or operator) call does, with the API's messages when
// it is refused; a secret or a code is shown once, and never in the Activity page.
import t from 'tap'
import { build, createShop, internalHeaders } from '../helper.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { localJustInTime, valuesAnswer } from '../fixtures/delivery-endpoint.js'
import { stockKey, stockProduct } from '../fixtures/stock.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { waitUntil } from '../fixtures/until.js'
import type { App } from '../helper.js'

const post = (app: App, session: PortalSession, url: string, fields: Record<string, string | string[]>) =>
  app.inject({
    method: 'POST',
    url,
    ...form(fields),
    headers: { ...form({}).headers, ...session.headers, 'hx-request': 'true' }
  })

/** Polls `condition` (a page's content) until it holds, for up to 20 s. */
const eventually = (condition: () => Promise<boolean>, what: string) => waitUntil(what, condition, 20_000, 100)

/** A multipart body of text fields and one file. */
function multipart (fields: Record<string, string>, file?: { name: string; content: string }) {
  const boundary = '----portal-test-boundary'
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  )
  if (file) {
    parts.push(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\n` +
        `content-type: text/plain\r\n\r\n${file.content}\r\n`
    )
  }
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: parts.join('') + `--${boundary}--\r\n`
  }
}

t.test("API keys: made with the operator's rules, the secret shown once, revoked everywhere", async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const session = await enterPortal(app, shopId, { locale: 'en' })
  const empty = await post(app, session, '/portal/api-keys', { name: '   ' })
  t.equal(empty.statusCode, 400)
  t.match(empty.body, /There is a problem/)
  t.match(empty.body, /<a href="#key-name">Key name: enter 1 to 200 characters\.<\/a>/, 'one sentence, linked to the field')
  t.equal(empty.body.match(/Key name: /g)?.length, 1, 'one message for the field')
  t.match(empty.body, /id="key-name-error"/)

  const created = await post(app, session, '/portal/api-keys', { name: ' Order bot ' })
  t.equal(created.statusCode, 201)
  t.equal(created.headers['hx-push-url'], '/portal/api-keys', 'a reload shows the list, not this answer')
  const secret = /id="new-secret"[^>]* value="(service_sk_[A-Za-z0-9]{40})"/.exec(created.body)?.[1]
  t.ok(secret, 'the secret, in the element labelled New secret')
  t.match(created.body, /Key “Order bot” created/)
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${secret}` } }))
      .statusCode,
    200,
    'it works on /v1'
  )
  const list = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })
  t.notMatch(list.body, secret!, 'not shown again')
  t.notMatch(list.body, /service_sk_/)
  const keyId = (
    await app.inject({ method: 'GET', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders })
  )
    .json()
    .data.apiKeys.find((k: { name: string }) => k.name === 'Order bot').id
  const confirm = await app.inject({
    method: 'GET',
    url: `/portal/api-keys/${keyId}/revoke`,
    headers: { cookie: session.cookie }
  })
  t.match(confirm.body, /Revoke the key “Order bot”\?/)
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${secret}` } }))
      .statusCode,
    200,
    'the confirmation page changes nothing'
  )
  const revoked = await post(app, session, `/portal/api-keys/${keyId}/revoke`, {})
  t.equal(revoked.statusCode, 200)
  t.match(revoked.body, /The key “Order bot” is revoked/)
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${secret}` } }))
      .statusCode,
    401,
    'refused on /v1'
  )
  const activity = await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: session.cookie } })
  t.match(activity.body, /Created the API key “Order bot”/)
  t.match(activity.body, /Revoked the API key “Order bot”/)
  t.match(activity.body, /Opened the portal/)
  t.notMatch(activity.body, /service_sk_/)
})

t.test("Webhooks: the API's URL rules and limit, the secret once, a test delivered, a retry", async (t) => {
  const app = await build(t, { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_RETRY_SCHEDULE: '0.2' })
  const shop = await createShop(app)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const receiver = await startReceiver(t)
  const refused = await post(app, session, '/portal/webhooks', {
    url: 'ftp://example.com/x',
    eventTypes: ['order.paid']
  })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, /<a href="#url">URL: must be an absolute http:\/\/ or https:\/\/ URL<\/a>|<a href="#url">URL: /)
  t.match(refused.body, /value="ftp:\/\/example.com\/x"/, 'the input is kept')
  t.match(refused.body, /id="event-order.paid" name="eventTypes" value="order.paid" checked/)
  t.match(refused.body, /<code>order.paid<\/code> — A buyer paid for an order/, 'each event kind says what it means')
  t.match(refused.body, /<code>chat.seller_called<\/code> — An auto-reply asked for a person/)

  const created = await post(app, session, '/portal/webhooks', {
    url: receiver.url,
    description: 'Bot',
    eventTypes: ['order.paid', 'message.created']
  })
  t.equal(created.statusCode, 201)
  const secret = /id="signing-secret"[^>]* value="(whsec_[A-Za-z0-9+/=]+)"/.exec(created.body)?.[1]
  t.ok(secret)
  const endpoints = (await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: shop.headers })).json()
    .data.endpoints
  t.same(
    endpoints.map((e: { url: string; eventTypes: string[]; description: string }) => [
      e.url,
      e.eventTypes,
      e.description
    ]),
    [[receiver.url, ['order.paid', 'message.created'], 'Bot']]
  )
  const id = endpoints[0].id
  const page = await app.inject({ method: 'GET', url: `/portal/webhooks/${id}`, headers: { cookie: session.cookie } })
  t.notMatch(page.body, /whsec_/)

  const tested = await post(app, session, `/portal/webhooks/${id}/test`, {})
  t.equal(tested.statusCode, 200)
  t.match(tested.body, /A test event is on its way/)
  await receiver.waitFor((attempts) => attempts.length === 1, 20_000, 'the test event')
  t.match(receiver.attempts[0].body, /"type":"webhook.test"/)
  await eventually(
    async () =>
      (
        await app.inject({ method: 'GET', url: `/portal/webhooks/${id}`, headers: { cookie: session.cookie } })
      ).body.includes('Delivered'),
    'the log shows it delivered'
  )

  receiver.answer = () => 500
  const deliveryId = (
    await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}/deliveries`, headers: shop.headers })
  ).json().data.deliveries[0].id
  const retried = await post(app, session, `/portal/webhooks/${id}/deliveries/${deliveryId}/retry`, {})
  t.equal(retried.statusCode, 200)
  await receiver.waitFor((attempts) => attempts.length >= 2, 20_000, 'the retry')
  await eventually(
    async () =>
      /<td[^>]*>500<\/td>/.test(
        (await app.inject({ method: 'GET', url: `/portal/webhooks/${id}`, headers: { cookie: session.cookie } })).body
      ),
    'the log shows the 500'
  )

  const disabled = await post(app, session, `/portal/webhooks/${id}/edit`, {
    url: receiver.url,
    description: 'Bot',
    enabled: 'false'
  })
  t.equal(disabled.statusCode, 200)
  t.same(
    (await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, headers: shop.headers })).json().data
      .endpoint.enabled,
    false
  )
  t.same(
    (await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, headers: shop.headers })).json().data
      .endpoint.eventTypes,
    [],
    'no box ticked: every event'
  )

  const rotated = await post(app, session, `/portal/webhooks/${id}/rotate`, {})
  t.match(rotated.body, /id="signing-secret"[^>]* value="whsec_/)
  const deleted = await post(app, session, `/portal/webhooks/${id}/delete`, {})
  t.match(deleted.body, /is deleted/)
  t.equal(
    (await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, headers: shop.headers })).statusCode,
    404
  )

  for (let i = 0; i < 10; i++) {
    await app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: shop.headers,
      payload: { url: `${receiver.url}/${i}` }
    })
  }
  const eleventh = await post(app, session, '/portal/webhooks', { url: receiver.url })
  t.equal(eleventh.statusCode, 400)
  t.match(eleventh.body, /A shop has at most 10 endpoints: delete one first\./, 'the limit, said for a person')
  const activity = (await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: session.cookie } }))
    .body
  t.match(activity, /Added the webhook endpoint 127\.0\.0\.1:/)
  t.notMatch(activity, /whsec_/)
})

t.test('Stock: upload pasted and from a file, settings, removal with the codes shown once', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const list = await app.inject({ method: 'GET', url: '/portal/stock', headers: { cookie: session.cookie } })
  t.match(list.body, new RegExp(`href="/portal/stock/${product.id}"`))

  const nothing = await app.inject({
    method: 'POST',
    url: `/portal/stock/${product.id}/upload`,
    ...multipart({ values: '\n  \n' }),
    headers: { ...multipart({}).headers, ...session.headers }
  })
  t.equal(nothing.statusCode, 400)
  t.match(nothing.body, /Enter codes or choose a file/)

  const codes = ['CODE-SECRET-0001', 'CODE-SECRET-0002', 'CODE-SECRET-0003']
  const upload = multipart(
    { values: `${codes[0]}\r\n\r\n  ${codes[1]}  \n${codes[0]}` },
    { name: 'codes.txt', content: `\uFEFF${codes[2]}\n${codes[1]}\n` }
  )
  const uploaded = await app.inject({
    method: 'POST',
    url: `/portal/stock/${product.id}/upload`,
    ...upload,
    headers: { ...upload.headers, ...session.headers }
  })
  t.equal(uploaded.statusCode, 201)
  t.match(uploaded.body, /<dt>Added<\/dt><dd>3<\/dd>/)
  t.match(uploaded.body, /<dt>Not added \(already in stock or repeated\)<\/dt><dd>2<\/dd>/)
  t.notMatch(uploaded.body, /CODE-SECRET/)
  const stock = (
    await app.inject({ method: 'GET', url: `/v1/products/${product.id}/stock`, headers: shop.headers })
  ).json().data.stock
  t.equal(stock.available, 3)

  const settings = await post(app, session, `/portal/stock/${product.id}/settings`, {
    autoDelivery: 'stock',
    lowStockThreshold: '2',
    deactivateWhenEmpty: 'true',
    optionFieldId: ''
  })
  t.equal(settings.statusCode, 200)
  t.match(settings.body, /The stock settings are saved/)
  const after = (
    await app.inject({ method: 'GET', url: `/v1/products/${product.id}/stock`, headers: shop.headers })
  ).json().data.stock
  t.same([after.autoDelivery, after.lowStockThreshold, after.deactivateWhenEmpty], ['stock', 2, true])
  const badSettings = await post(app, session, `/portal/stock/${product.id}/settings`, {
    autoDelivery: 'stock',
    lowStockThreshold: 'many',
    deactivateWhenEmpty: 'true',
    optionFieldId: ''
  })
  t.equal(badSettings.statusCode, 400)
  t.match(badSettings.body, /href="#low">Warn when the available count falls to: enter a whole number\./)

  const page = await app.inject({
    method: 'GET',
    url: `/portal/stock/${product.id}`,
    headers: { cookie: session.cookie }
  })
  t.notMatch(page.body, /CODE-SECRET/, 'a listing shows previews only')
  const ids = [...page.body.matchAll(/name="ids" value="([0-9a-f-]{36})"/g)].map((m) => m[1])
  t.equal(ids.length, 3)
  const confirm = await app.inject({
    method: 'GET',
    url: `/portal/stock/${product.id}/remove?ids=${ids[0]}&ids=${ids[1]}`,
    headers: { cookie: session.cookie }
  })
  t.match(confirm.body, /Remove 2 codes\?/)
  t.equal(
    (await app.inject({ method: 'GET', url: `/v1/products/${product.id}/stock`, headers: shop.headers })).json().data
      .stock.available,
    3,
    'the confirmation changes nothing'
  )
  const removed = await post(app, session, `/portal/stock/${product.id}/remove`, { ids: [ids[0], ids[1]] })
  t.equal(removed.statusCode, 200)
  t.match(removed.body, /CODE-SECRET-000\d\nCODE-SECRET-000\d<\/textarea>/, 'the removed codes, once')
  const again = await post(app, session, `/portal/stock/${product.id}/remove`, { ids: [ids[0]] })
  t.equal(again.statusCode, 409)
  t.match(again.body, /One of the codes was already delivered or removed: reload the page\./)
  const activity = (await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: session.cookie } }))
    .body
  t.match(activity, /Uploaded 3 codes to “/)
  t.match(activity, /Removed 2 codes from “/)
  t.notMatch(activity, /CODE-SECRET/)
  for (const url of [
    '/portal/stock',
    `/portal/stock/${product.id}`,
    `/portal/stock/${product.id}/upload`,
    `/portal/stock/${product.id}/settings`
  ]) {
    t.notMatch((await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })).body, /CODE-SECRET/, url)
  }
})

t.test('Delivery endpoint: set, the test call with its result, recent requests', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'endpoint' })
  const session = await enterPortal(app, shop.shopId)
  const receiver = await startReceiver(t)
  receiver.answer = () => valuesAnswer(['VALUE-NEVER-SHOWN'])
  const none = await app.inject({
    method: 'GET',
    url: '/portal/delivery-endpoint',
    headers: { cookie: session.cookie }
  })
  t.match(none.body, /Адрес выдачи не задан/, 'Russian by default')
  const set = await post(app, session, '/portal/delivery-endpoint', { url: receiver.url })
  t.equal(set.statusCode, 201)
  t.match(set.body, /id="signing-secret"[^>]* value="whsec_/)
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/delivery-endpoint', headers: shop.headers })).json().data
      .deliveryEndpoint.url,
    receiver.url
  )
  const badQuantity = await post(app, session, '/portal/delivery-endpoint/test', {
    productId: product.id,
    quantity: '0'
  })
  t.equal(badQuantity.statusCode, 400)
  t.match(badQuantity.body, /href="#quantity">Количество: введите число от 1 до \d+\./, 'the rule, in Russian')
  const tested = await post(app, session, '/portal/delivery-endpoint/test', { productId: product.id, quantity: '2' })
  t.equal(tested.statusCode, 200)
  t.match(tested.body, /С таким ответом заказ был бы выдан/)
  t.match(tested.body, /<dt>Значений в ответе<\/dt><dd>1<\/dd>/)
  t.notMatch(tested.body, /VALUE-NEVER-SHOWN/)
  await app.inject({
    method: 'POST',
    url: '/internal/v1/orders',
    headers: internalHeaders,
    payload: {
      productId: product.id,
      quantity: 1,
      fieldValues: [{ fieldId: product.fields[0].id, value: 'buyer@example.com' }]
    }
  })
  await eventually(
    async () =>
      /Выдан</.test(
        (await app.inject({ method: 'GET', url: '/portal/delivery-endpoint', headers: { cookie: session.cookie } }))
          .body
      ),
    'the request shows delivered'
  )
  const page = (
    await app.inject({ method: 'GET', url: '/portal/delivery-endpoint', headers: { cookie: session.cookie } })
  ).body
  t.notMatch(page, /VALUE-NEVER-SHOWN|whsec_/)
  const deleted = await post(app, session, '/portal/delivery-endpoint/delete', {})
  t.match(deleted.body, /Адрес выдачи удалён/)
  t.equal((await app.inject({ method: 'GET', url: '/v1/delivery-endpoint', headers: shop.headers })).statusCode, 404)
})
