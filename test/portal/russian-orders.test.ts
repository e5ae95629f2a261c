// The seller's workplace in Russian (docs/portal.md): on a Russian session the
// Needs attention page, the orders list and an order's page (its chat, events,
// delivery and cancel confirmation) hold no English words besides the names a
// Russian seller reads as they are; the cancel confirmation names the amount and
// what happens to the balance.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { enterPortal } from '../fixtures/portal.js'
import { buy, postAsBuyer } from '../fixtures/orders.js'
import { stockKey, stockProduct } from '../fixtures/stock.js'

/** Latin-letter words a Russian page may hold: names read as they are, the zone's offset, the product's field. */
const LATIN_NAMES = new Set(['URL', 'HTTPS', 'https', 'API', 'GMT', 'UTC', 'Europe', 'Moscow', 'English', 'ID', 'Email'])
/** The page's words, without ids and values (an order id, the buyer's e-mail): tokens with a digit or an @. */
const wordsOf = (text: string) => text.split(/\s+/).filter((token) => !/[\d@]/.test(token))
  .flatMap((token) => token.match(/[A-Za-z]{2,}/g) ?? [])

const mainText = (html: string) => (/<main\b[\s\S]*?<\/main>/.exec(html)?.[0] ?? '')
  .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ').replace(/&[a-z#0-9]+;/g, ' ')

t.test('Needs attention, Orders and an order\'s page are Russian on a Russian session', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app, 'Лунные ключи')
  const product = await stockProduct(app, shop, { autoDelivery: 'off' }, { title: 'Ключ активации' })
  const order = await buy(app, product)
  await postAsBuyer(app, order.id, 'Здравствуйте, где мой код?')
  const session = await enterPortal(app, shop.shopId, { locale: 'ru' })
  const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
  for (const url of ['/portal/attention', '/portal/orders', '/portal/orders?status=paid', `/portal/orders/${order.id}`,
    `/portal/orders/${order.id}/cancel`]) {
    const res = await page(url)
    t.equal(res.statusCode, 200, url)
    const english = wordsOf(mainText(res.body)).filter((word) => !LATIN_NAMES.has(word))
    t.same(english, [], `${url}: no English words`)
  }
  const cancel = await page(`/portal/orders/${order.id}/cancel`)
  t.match(mainText(cancel.body), /Покупателю вернётся \d/, 'the confirmation names the refunded amount')
  t.match(mainText(cancel.body), /баланс/, 'and what happens to the balance')
})
