// The portal's Orders pages (docs/portal.md): the shop's orders as /v1 shows them,
// filtered and paged by a cursor; an order's page with its codes masked until a
// reveal (no-store, recorded without them, masked again after); the reply, take,
// deliver and cancel through the /v1 code (what /v1 then says, the same events);
// refusals (read-only, CSRF, another shop's order) change nothing.
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { readAll } from '../fixtures/events.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { act, buy, ledger, postAsBuyer } from '../fixtures/orders.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'

type Sender = PortalSession | { headers: Record<string, string> }
const post = (app: App, session: Sender, url: string, fields: Record<string, string> = {}) => app.inject({
  method: 'POST',
  url,
  ...form(fields),
  headers: { ...form({}).headers, ...session.headers, 'hx-request': 'true' }
})
const page = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const rowIds = (html: string) => [...html.matchAll(/<tr id="order-([0-9a-f-]{36})">/g)].map((m) => m[1])
const olderLink = (html: string) =>
  /<a href="(\/portal\/orders\?[^"]+)" rel="next">/.exec(html)?.[1].replaceAll('&amp;', '&')
const apiOrder = async (app: App, shop: ShopFixture, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/orders/${id}`, headers: shop.headers })).json().data.order
const messagesOf = async (app: App, shop: ShopFixture, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/orders/${id}/messages`, headers: shop.headers })).json().data.messages

t.test('Orders: the list by status across 3 pages of 50 by its cursor, newest first, scoped to the shop', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const second = await stockProduct(app, shop, { autoDelivery: 'off' }, { title: 'Second product' })
  const otherProduct = await stockProduct(app, other, { autoDelivery: 'off' })
  const paid: string[] = []
  for (let i = 0; i < 115; i++) paid.push((await buy(app, i % 23 === 0 ? second : product)).id)
  const taken: string[] = []
  for (let i = 0; i < 4; i++) {
    const order = await buy(app, product)
    t.equal((await act(app, shop, order.id, 'take')).statusCode, 200)
    taken.push(order.id)
  }
  const foreign = await buy(app, otherProduct)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })

  const first = await page(app, session, '/portal/orders?status=paid')
  t.equal(first.statusCode, 200)
  t.match(first.body, /<a href="\/portal\/orders" aria-current="page">Orders/)
  const newestFirst = [...paid].reverse()
  t.same(rowIds(first.body), newestFirst.slice(0, 50))
  const second50 = await page(app, session, olderLink(first.body)!)
  t.same(rowIds(second50.body), newestFirst.slice(50, 100))
  t.match(second50.body, /Back to the newest/)
  const third = await page(app, session, olderLink(second50.body)!)
  t.same(rowIds(third.body), newestFirst.slice(100))
  t.equal(olderLink(third.body), undefined, 'no page after the last')

  const both = await page(app, session, '/portal/orders?status=processing&status=paid')
  t.same(rowIds(both.body).slice(0, 4), [...taken].reverse(), 'several statuses, newest first')
  const byProduct = await page(app, session, `/portal/orders?product=${second.id}`)
  t.same(rowIds(byProduct.body), paid.filter((_, i) => i % 23 === 0).reverse())
  // The days are the session's (Moscow's): at 22:00 UTC it is already tomorrow there.
  const moscowDay = (at: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow' }).format(at)
  const today = moscowDay(Date.now())
  const yesterday = moscowDay(Date.now() - 86_400_000)
  const todays = await page(app, session, `/portal/orders?from=${today}&to=${today}&status=processing`)
  t.equal(rowIds(todays.body).length, 4)
  t.equal(rowIds((await page(app, session, `/portal/orders?to=${yesterday}`)).body).length, 0)
  const all: string[] = []
  for (let url: string | undefined = '/portal/orders'; url !== undefined;) {
    const res = await page(app, session, url)
    all.push(...rowIds(res.body))
    url = olderLink(res.body)
  }
  t.equal(all.length, 119, 'every order of the shop, once')
  t.notOk(all.includes(foreign.id), 'never another shop\'s order')

  const found = await page(app, session, `/portal/orders?q=${taken[1].slice(0, 8)}`)
  t.same(rowIds(found.body), [taken[1]], 'searched by the first 8 characters of its id')
  const short = await page(app, session, `/portal/orders?q=${taken[1].slice(0, 7)}`)
  t.equal(short.statusCode, 400)
  t.match(short.body, /Order id: enter at least 8 characters/)
  const badDay = await page(app, session, '/portal/orders?from=2026-13-40')
  t.equal(badDay.statusCode, 400)
  t.match(badDay.body, /Enter a day as YYYY-MM-DD/)
  t.equal(rowIds((await page(app, session, `/portal/orders?q=${foreign.id}`)).body).length, 0)

  const ru = await enterPortal(app, shop.shopId)
  const russian = await page(app, ru, '/portal/orders?status=paid')
  t.match(russian.body, /aria-current="page">Заказы/)
  t.match(russian.body, /Оплачен, ждёт/)
  t.equal((await page(app, session, `/portal/orders/${foreign.id}`)).statusCode, 404, 'another shop\'s order')
  t.equal((await page(app, session, '/portal/orders/not-an-id')).statusCode, 404)
})

t.test('Orders: delivered codes masked, shown on a POST only (no-store, recorded without them)', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop)
  await addValues(app, shop, product.id, ['KAV-SECRET-CODE-0001'])
  const order = await buy(app, product)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const plain = await page(app, session, `/portal/orders/${order.id}`)
  t.equal(plain.statusCode, 200)
  t.notMatch(plain.body, /KAV-SECRET-CODE-0001/)
  t.match(plain.body, /<code>KAV-…<\/code>/)
  t.match(plain.body, />Show codes</)

  const refused = await post(app, { headers: { cookie: session.cookie } }, `/portal/orders/${order.id}/reveal`)
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().error.code, 'CSRF_INVALID')
  const shown = await post(app, session, `/portal/orders/${order.id}/reveal`)
  t.equal(shown.statusCode, 200)
  t.equal(shown.headers['cache-control'], 'no-store')
  t.match(shown.body, /<code>KAV-SECRET-CODE-0001<\/code>/)
  t.equal(shown.headers['hx-push-url'], `/portal/orders/${order.id}`)
  const activity = await page(app, session, '/portal/activity')
  t.match(activity.body, `Showed the delivered codes of order ${order.id.slice(0, 8)}`)
  t.notMatch(activity.body, /SECRET-CODE/)
  const again = await page(app, session, `/portal/orders/${order.id}`)
  t.notMatch(again.body, /KAV-SECRET-CODE-0001/, 'masked again on the next view')

  const other = await createShop(app, 'Other')
  const otherSession = await enterPortal(app, other.shopId, { locale: 'en' })
  t.equal((await post(app, otherSession, `/portal/orders/${order.id}/reveal`)).statusCode, 404)
})

t.test('Orders: reply, take, deliver and cancel through the /v1 code, with the same events', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const order = await buy(app, product)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  t.equal((await postAsBuyer(app, order.id, 'Where is my key?')).statusCode, 201)
  const { cursor } = await readAll(app, shop)

  const replied = await post(app, session, `/portal/orders/${order.id}/messages`, { text: '  It is on its way.  ' })
  t.equal(replied.statusCode, 200)
  t.match(replied.body, /Your message is sent/)
  t.match(replied.body,
    /chat__message--buyer[\s\S]*Where is my key\?[\s\S]*chat__message--seller[\s\S]*It is on its way/)
  const messages = await messagesOf(app, shop, order.id)
  t.same(messages.map((m: { senderRole: string, text: string }) => [m.senderRole, m.text]),
    [['buyer', 'Where is my key?'], ['seller', 'It is on its way.']])
  const empty = await post(app, session, `/portal/orders/${order.id}/messages`, { text: '   ' })
  t.equal(empty.statusCode, 400)
  t.match(empty.body, /id="reply-error"/)
  t.equal((await messagesOf(app, shop, order.id)).length, 2, 'a refused reply posts nothing')

  t.equal((await post(app, session, `/portal/orders/${order.id}/take`)).statusCode, 200)
  const twice = await post(app, session, `/portal/orders/${order.id}/take`)
  t.equal(twice.statusCode, 409, 'the /v1 refusal, on the page')
  const delivered = await post(app, session, `/portal/orders/${order.id}/deliver`, { values: 'CODE-A\r\n\r\nCODE-B\n' })
  t.equal(delivered.statusCode, 200)
  t.same((await apiOrder(app, shop, order.id)).deliveredValues, ['CODE-A', 'CODE-B'])
  t.notMatch(delivered.body, /CODE-A/, 'masked on the page that delivered them too')

  const confirm = await page(app, session, `/portal/orders/${order.id}/cancel`)
  t.match(confirm.body, new RegExp(`The buyer gets ${order.amount.toFixed(2)} ₽ back\\. Your balance does not change now`))
  const cancelled = await post(app, session, `/portal/orders/${order.id}/cancel`, { reason: 'Out of keys' })
  t.equal(cancelled.statusCode, 200)
  t.match(cancelled.body, `${order.amount.toFixed(2)} ₽ refunded to the buyer`)
  t.equal((await apiOrder(app, shop, order.id)).status, 'cancelled')
  t.same((await ledger(app, shop.shopId)).entries.map((e) => e.kind), ['refund'])
  const { events } = await readAll(app, shop, cursor)
  t.same(events.map((e) => e.type), ['message.created', 'order.taken', 'order.delivered', 'order.cancelled'])
  t.equal(events[0].data.message.text, 'It is on its way.')
  const orderPage = await page(app, session, `/portal/orders/${order.id}`)
  t.match(orderPage.body, /Taken into work[\s\S]*Delivered[\s\S]*Cancelled/)
  const activity = await page(app, session, '/portal/activity')
  for (const text of ['Replied in the chat of order', 'Took order', 'Delivered order', 'Cancelled order']) {
    t.match(activity.body, `${text} ${order.id.slice(0, 8)}`)
  }
})

t.test('Orders: read-only sessions, missing CSRF and another shop change nothing', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const order = await buy(app, product)
  const readOnly = await enterPortal(app, shop.shopId, { readOnly: true, locale: 'en' })
  const view = await page(app, readOnly, `/portal/orders/${order.id}`)
  t.equal(view.statusCode, 200)
  t.notMatch(view.body, />Send</, 'no reply box')
  t.notMatch(view.body, /Take into work/)
  for (const [action, fields] of [['messages', { text: 'Hi' }], ['take', {}], ['cancel', {}]] as const) {
    const res = await post(app, readOnly, `/portal/orders/${order.id}/${action}`, fields)
    t.equal(res.statusCode, 403)
    t.equal(res.json().error.code, 'READ_ONLY')
  }
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const noCsrf = await post(app, { headers: { cookie: session.cookie } }, `/portal/orders/${order.id}/take`)
  t.equal(noCsrf.json().error.code, 'CSRF_INVALID')
  const other = await createShop(app, 'Other')
  const otherSession = await enterPortal(app, other.shopId, { locale: 'en' })
  for (const [action, fields] of [['messages', { text: 'Hi' }], ['take', {}], ['cancel', {}]] as const) {
    t.equal((await post(app, otherSession, `/portal/orders/${order.id}/${action}`, fields)).statusCode, 404)
  }
  t.equal((await page(app, otherSession, `/portal/orders/${order.id}/cancel`)).statusCode, 404)
  t.equal((await apiOrder(app, shop, order.id)).status, 'paid')
  t.same(await messagesOf(app, shop, order.id), [])
})
