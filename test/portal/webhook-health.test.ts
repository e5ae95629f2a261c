// The portal's webhook health (docs/portal.md "Webhooks"): each endpoint's health
// instead of a bare "enabled" (failing since when, healthy, nothing sent yet), a
// failed attempt shown as failed, a delivery's attempts with the receiver's answer
// (status, the first 1 KB of its body, the error), `Retry all failed` through the
// service's retry, and Needs attention leading to the failing endpoint.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { waitUntil } from '../fixtures/until.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint, deliveries, localDelivery } from '../fixtures/webhooks.js'
import type { App } from '../helper.js'

const page = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const post = (app: App, session: PortalSession, url: string, fields: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, ...form(fields), headers: { ...form({}).headers, ...session.headers } })
const main = (html: string) => html.split('<main')[1]

t.test('an endpoint\'s health, its attempts with the answers, Retry all failed', async (t) => {
  // Two quick attempts, then the next an hour away: the send stays pending after failing.
  const app = await build(t, { ...localDelivery, WEBHOOK_RETRY_SCHEDULE: '0.2,3600' })
  const shop = await createShop(app)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })

  const failing = await startReceiver(t)
  failing.answer = () => (res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('database is down')
  const healthy = await startReceiver(t, '/ok')
  healthy.answer = () => (res) => res.writeHead(200).end('y'.repeat(3000))
  const bad = (await createEndpoint(app, shop, { url: failing.url, eventTypes: ['stock.low'] })).endpoint
  const good = (await createEndpoint(app, shop, { url: healthy.url, eventTypes: ['stock.low'] })).endpoint
  await createEndpoint(app, shop, { url: `${healthy.url}/idle`, eventTypes: ['stock.low'] })

  const before = main((await page(app, session, '/portal/webhooks')).body)
  t.notMatch(before, /Enabled/, 'no bare "Enabled"')
  t.equal(before.match(/Nothing sent yet/g)?.length, 3)

  for (const id of [bad.id, good.id]) {
    t.equal((await post(app, session, `/portal/webhooks/${id}/test`)).statusCode, 200)
  }
  await waitUntil('two failed attempts and one success', async () => {
    const [sent] = (await deliveries(app, shop, bad.id)).deliveries
    return sent?.attempts === 2 && sent.nextAttemptAt !== null && healthy.attempts.length === 1 &&
      (await deliveries(app, shop, good.id)).deliveries[0]?.status === 'succeeded'
  })
  const [send] = (await deliveries(app, shop, bad.id)).deliveries
  t.equal(send.status, 'pending', 'the API still says pending: the next attempt is due in an hour')

  const list = main((await page(app, session, '/portal/webhooks')).body)
  t.match(list, /<span class="tag tag--red">Failing since [^<]+<\/span>/)
  t.match(list, /<span class="tag tag--green">Healthy<\/span>/)
  t.equal(list.match(/Nothing sent yet/g)?.length, 1)

  const attention = main((await page(app, session, '/portal/attention')).body)
  t.match(attention, new RegExp(`<a href="/portal/webhooks/${bad.id}" id="attention-webhooks">` +
    'Webhook endpoints whose last attempt failed: 1</a>'), 'one failing endpoint: the count opens it')
  t.match(attention, new RegExp(`<a href="/portal/webhooks/${bad.id}" class="url">${failing.url}: failing since `))

  const endpointPage = main((await page(app, session, `/portal/webhooks/${bad.id}`)).body)
  t.match(endpointPage, /<dt>Health<\/dt><dd><span class="tag tag--red">Failing since/)
  t.match(endpointPage, /<dt>Last attempt<\/dt><dd>[^<]+: failed, answered 500<\/dd>/)
  t.match(endpointPage, /<dt>Failed attempts in the last 24 hours<\/dt><dd>2 of 2 \(100%\)<\/dd>/)
  t.match(endpointPage, /<span class="tag tag--red">Failed, retrying<\/span>/, 'a failed attempt is not "Pending"')
  t.notMatch(endpointPage, />Pending</)
  t.notMatch(endpointPage, /Retry all failed/, 'nothing has failed for good yet')
  const attemptsUrl = `/portal/webhooks/${bad.id}/deliveries/${send.id}`
  t.match(endpointPage, new RegExp(`<a href="${attemptsUrl}" aria-describedby="delivery-${send.id}">View attempts</a>`))

  const attempts = await page(app, session, attemptsUrl)
  t.equal(attempts.statusCode, 200)
  const view = main(attempts.body)
  t.match(view, /<h1[^>]*>Delivery of webhook.test<\/h1>/)
  t.match(view, new RegExp(`<dt>Event id \\(webhook-id header\\)</dt><dd><code>${send.eventId}</code>`))
  t.match(view, /<dt>Attempts made<\/dt><dd>2<\/dd>/)
  t.match(view, /<dt>Next attempt<\/dt>/)
  t.match(view, /<h3 id="attempt-2">Attempt 2, [^<]+<\/h3>[\s\S]*<h3 id="attempt-1">Attempt 1, /, 'newest first')
  t.equal(view.match(/<span class="tag tag--red">500<\/span>/g)?.length, 2)
  t.equal(view.match(/<pre class="answer">database is down<\/pre>/g)?.length, 2, 'the receiver\'s answer')
  t.equal(view.match(/<dd>Answered HTTP 500.<\/dd>/g)?.length, 2, 'the error in the page\'s words')
  t.equal(send.lastError, 'HTTP 500.', 'the API\'s words are as before')

  const [goodSend] = (await deliveries(app, shop, good.id)).deliveries
  const goodView = main((await page(app, session, `/portal/webhooks/${good.id}/deliveries/${goodSend.id}`)).body)
  t.match(goodView, /<span class="tag tag--green">200<\/span>/)
  t.match(goodView, new RegExp(`<pre class="answer">${'y'.repeat(1024)}</pre>`), 'the first 1 KB of the answer')

  // Turning the endpoint off ends its pending send as failed; on again, Retry all failed sends it again.
  t.equal((await post(app, session, `/portal/webhooks/${bad.id}/edit`,
    { url: failing.url, eventTypes: 'stock.low', enabled: 'false' })).statusCode, 200)
  const disabled = main((await page(app, session, `/portal/webhooks/${bad.id}`)).body)
  t.match(disabled, /<span class="tag tag--grey">Disabled<\/span>/)
  t.match(disabled, /<span class="tag tag--red">Failed<\/span>/)
  t.equal((await post(app, session, `/portal/webhooks/${bad.id}/edit`,
    { url: failing.url, eventTypes: 'stock.low', enabled: 'true' })).statusCode, 200)
  t.match(main((await page(app, session, `/portal/webhooks/${bad.id}`)).body), /Retry all failed/)

  const otherShop = await createShop(app)
  const other = await enterPortal(app, otherShop.shopId, { locale: 'en' })
  t.equal((await post(app, other, `/portal/webhooks/${bad.id}/deliveries/retry-failed`)).statusCode, 404)
  t.equal((await page(app, other, attemptsUrl)).statusCode, 404, 'another shop\'s delivery')
  t.equal((await page(app, session, `/portal/webhooks/${bad.id}/deliveries/${goodSend.id}`)).statusCode, 404,
    'a delivery of another endpoint')
  t.equal((await page(app, session, `/portal/webhooks/${bad.id}/deliveries/nope`)).statusCode, 404)
  const noCsrf = await app.inject({
    method: 'POST', url: `/portal/webhooks/${bad.id}/deliveries/retry-failed`, headers: { cookie: session.cookie }
  })
  t.equal(noCsrf.statusCode, 403)
  t.equal((await deliveries(app, shop, bad.id)).deliveries[0].status, 'failed', 'refusals changed nothing')

  const retried = await post(app, session, `/portal/webhooks/${bad.id}/deliveries/retry-failed`)
  t.equal(retried.statusCode, 200)
  t.match(retried.body, /1 failed delivery is being attempted again now\./)
  await failing.waitFor((a) => a.length === 3, 20_000, 'the retried attempt')
  await waitUntil('the third attempt recorded', async () =>
    (await deliveries(app, shop, bad.id)).deliveries[0].attempts === 3 &&
    (await deliveries(app, shop, bad.id)).deliveries[0].lastStatusCode === 500)
  t.equal((await deliveries(app, shop, bad.id)).deliveries[0].status, 'failed',
    'past its schedule, the retried send that failed again is failed again (as the API\'s retry)')
  const nothing = await post(app, session, `/portal/webhooks/${good.id}/deliveries/retry-failed`)
  t.match(nothing.body, /No delivery has failed: there is nothing to retry\./)
  t.match(main((await page(app, session, '/portal/activity')).body), /Retried the failed deliveries to 127\.0\.0\.1/)

  const ru = await enterPortal(app, shop.shopId)
  const russian = main((await page(app, ru, attemptsUrl)).body)
  t.match(russian, /<h3 id="attempt-3">Попытка 3, /)
  t.match(russian, /<dt>Тело ответа \(первый 1 КБ\)<\/dt><dd><pre class="answer">database is down<\/pre>/)
  t.match(main((await page(app, ru, '/portal/webhooks')).body), /Сбои с /)
})
