// Texts the service stores in English, on Russian pages (docs/portal/building.md "Stored
// texts"): a webhook attempt's error, a delivery request's failed attempt and the
// chat's system messages are said in Russian from the kind stored beside them,
// while the API keeps returning the English text as it was; a row stored without
// a kind (written before migration 0021) shows its text as it is, marked English.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { build, createShop, type App } from '../helper.js'
import { claimAction, openedClaim, operatorAction } from '../fixtures/claims.js'
import { localJustInTime, putDeliveryEndpoint, waitForRequest } from '../fixtures/delivery-endpoint.js'
import { enterPortal, type PortalSession } from '../fixtures/portal.js'
import { buy } from '../fixtures/orders.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { waitUntil } from '../fixtures/until.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint, deliveries } from '../fixtures/webhooks.js'

const page = async (app: App, session: PortalSession, url: string) => {
  const res = await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 3000)}`)
  return res.body.split('<main')[1]
}

t.test('a failed webhook attempt, in Russian; the API still says it in English', async (t) => {
  const app = await build(t, { ...localJustInTime, WEBHOOK_RETRY_SCHEDULE: '3600' })
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  receiver.answer = () => (res) => res.writeHead(500).end('down')
  const failing = (await createEndpoint(app, shop, { url: receiver.url, eventTypes: ['stock.low'] })).endpoint
  // Nothing listens on port 9 of this host: the connection is refused.
  const refused = (await createEndpoint(app, shop, { url: 'http://127.0.0.1:9/hook', eventTypes: ['stock.low'] }))
    .endpoint
  const ru = await enterPortal(app, shop.shopId, { locale: 'ru' })
  for (const id of [failing.id, refused.id]) {
    const sent = await app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${id}/test`, headers: shop.headers })
    t.equal(sent.statusCode, 202, 'test send')
  }
  const lastOf = async (id: string) => (await deliveries(app, shop, id)).deliveries[0]
  // An attempt is counted when it is leased: its outcome is there once lastError is.
  await waitUntil('both sends attempted', async () =>
    (await lastOf(failing.id))?.lastError != null && (await lastOf(refused.id))?.lastError != null)
  const [failed, notConnected] = [await lastOf(failing.id), await lastOf(refused.id)]
  t.equal(failed.lastError, 'HTTP 500.', 'the API\'s words are as before')
  t.equal(notConnected.lastError, 'The connection was refused.')

  const cases = [
    { endpoint: failing, send: failed, russian: 'Ответ HTTP 500.', english: 'HTTP 500.' },
    { endpoint: refused, send: notConnected, russian: 'Соединение отклонено.', english: 'The connection was refused.' }
  ]
  for (const { endpoint, send, russian, english } of cases) {
    const log = await page(app, ru, `/portal/webhooks/${endpoint.id}`)
    const attempts = await page(app, ru, `/portal/webhooks/${endpoint.id}/deliveries/${send.id}`)
    for (const [name, html] of [['log', log], ['attempts', attempts]]) {
      t.match(html, `>${russian}<`, `${name}: ${russian}`)
      t.notMatch(html, `>${english}<`, `${name}: not "${english}"`)
      t.notMatch(html, 'lang="en"', `${name}: nothing marked English`)
    }
  }

  // Disabled through the API: the reason too.
  const endpointUrl = `/v1/webhook-endpoints/${refused.id}`
  const disabled = await app.inject({ method: 'PATCH', url: endpointUrl, headers: shop.headers, payload: { enabled: false } })
  t.equal(disabled.json().data.endpoint.disabledReason, 'Disabled through the API.', 'the API\'s words are as before')
  const off = await page(app, ru, `/portal/webhooks/${refused.id}`)
  t.match(off, 'Отключён через API.')
  t.notMatch(off, 'Disabled through the API.')

  // A row stored before its kind was kept: its text as it is, marked English.
  await app.db.execute(sql`update webhook_deliveries set last_error_detail = null,
    attempt_log = jsonb_build_array((attempt_log->0) - 'failure') where id = ${failed.id}`)
  const old = await page(app, ru, `/portal/webhooks/${failing.id}/deliveries/${failed.id}`)
  t.match(old, '<span lang="en">HTTP 500.</span>', 'an older attempt: the stored text, marked English')
  t.match(await page(app, ru, `/portal/webhooks/${failing.id}`), '<span lang="en">HTTP 500.</span>')
})

t.test('a delivery request\'s failed attempts, in Russian', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const receiver = await startReceiver(t)
  receiver.answer = () => (res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ values: [1, ''] }))
  }
  await putDeliveryEndpoint(app, shop, receiver.url)
  const product = await stockProduct(app, shop, { autoDelivery: 'endpoint' })
  const order = await buy(app, product)
  const request = await waitForRequest(app, shop, order.id, (r) => r.status === 'failed')
  t.equal(request.attempts[0].error, '1 of the values is not a string. 1 of the values is empty.',
    'the API\'s words are as before')
  t.notOk('failure' in request.attempts[0], 'the API shows no new field')
  const ru = await enterPortal(app, shop.shopId, { locale: 'ru' })
  const html = await page(app, ru, '/portal/delivery-endpoint')
  t.match(html, 'Значений не текстом: 1. Пустых значений: 1.')
  t.notMatch(html, /of the values is/, 'not the API\'s English')
})

t.test('an order chat with a claim\'s system messages, in Russian and in English', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  await addValues(app, shop, product.id, ['CODE-1', 'CODE-2', 'CODE-3', 'CODE-4', 'CODE-5'])
  const order = await buy(app, product, { quantity: 2 })
  const claim = await openedClaim(app, order.id, { reason: 'not_working', text: 'Не работают', valueIndexes: [0, 1] })
  t.equal((await claimAction(app, shop, claim.id, 'replace')).statusCode, 200, 'replaced')
  const other = await buy(app, product)
  const rejected = await openedClaim(app, other.id, { reason: 'other', text: 'Не то', valueIndexes: [] })
  t.equal((await claimAction(app, shop, rejected.id, 'reject', { note: 'Всё работает' })).statusCode, 200)
  t.equal((await operatorAction(app, rejected.id, 'escalate')).statusCode, 200, 'escalated')

  const messages = (await app.inject({ method: 'GET', url: `/v1/orders/${order.id}/messages`, headers: shop.headers }))
    .json().data.messages.map((m: { text: string }) => m.text)
  t.same(messages, ['The buyer opened a claim: 2 delivered values reported as not working as described.',
    'Claim resolved: 2 values replaced by the shop.'], 'the API: English, with real plurals')

  const ru = await enterPortal(app, shop.shopId, { locale: 'ru' })
  const chat = await page(app, ru, `/portal/orders/${order.id}`)
  t.match(chat, 'Покупатель открыл претензию: 2 выданных кода не работают, как описано.')
  t.match(chat, 'Претензия решена: 2 кода заменены магазином.')
  const second = await page(app, ru, `/portal/orders/${other.id}`)
  t.match(second, 'Покупатель открыл претензию: весь заказ не работает, как описано.')
  t.match(second, 'Претензия отклонена магазином.')
  t.match(second, 'Покупатель передал претензию маркетплейсу.')
  for (const html of [chat, second]) {
    t.notMatch(html, /opened a claim|Claim resolved|Claim rejected|escalated|value\(s\)/, 'no English')
  }
  const en = await enterPortal(app, shop.shopId, { locale: 'en' })
  t.match(await page(app, en, `/portal/orders/${order.id}`),
    'The buyer opened a claim: 2 delivered codes are reported as not working as described.')
})
