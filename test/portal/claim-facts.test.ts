// The facts a claim's page states (docs/portal.md "Claims"): what the claim reports
// of what its order delivered (never "the whole order, it delivered no codes" for an
// order that delivered one), Replace asking first with how many codes go out from
// which stock, and the refund's confirmation naming the amount and what happens to
// the shop's balance — in both languages; the confirmations change nothing.
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { openedClaim } from '../fixtures/claims.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { buy, confirm } from '../fixtures/orders.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'

const page = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const apiClaim = async (app: App, shop: ShopFixture, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/claims/${id}`, headers: shop.headers })).json().data.claim
const main = (html: string) => html.split('<main')[1]

t.test('a claim\'s facts, and the confirmations of replace and refund', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' }, { title: 'Steam card' })
  await addValues(app, shop, product.id, ['CODE-A', 'CODE-B', 'CODE-C', 'CODE-D', 'CODE-E', 'CODE-F', 'CODE-G'])
  const [noneNamed, named, completed] = [await buy(app, product), await buy(app, product), await buy(app, product)]
  t.equal((await confirm(app, completed.id)).statusCode, 200)
  const vague = await openedClaim(app, noneNamed.id, { reason: 'other', text: 'Something is off', valueIndexes: [] })
  const precise = await openedClaim(app, named.id, { reason: 'not_working', text: 'Does not activate' })
  const late = await openedClaim(app, completed.id, { reason: 'already_used', text: 'Used already' })
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })

  const list = main((await page(app, session, '/portal/claims')).body)
  t.notMatch(list, /delivered no codes/, 'no claim here is on an order that delivered nothing')
  const row = (id: string) => list.split(`<tr id="claim-${id}">`)[1].split('</tr>')[0]
  t.match(row(vague.id), /Codes delivered: 1\. The buyer reported none in particular, so the claim can be refunded or rejected, not replaced\./)
  t.notMatch(row(vague.id), /\/replace"/, 'a claim reporting no code offers no replacement')
  t.match(row(precise.id), /Codes reported: 1 of 1 delivered/)
  const order = named.id.slice(0, 8)
  t.match(row(precise.id), new RegExp(`<a href="/portal/claims/${precise.id}/replace">Replace from stock` +
    `<span class="visually-hidden"> the claim on order ${order}</span></a>`), 'Replace asks first: a link')

  const replace = main((await page(app, session, `/portal/claims/${precise.id}/replace`)).body)
  t.match(replace, /<h1[^>]*>Replace the reported codes from stock\?<\/h1>/)
  t.match(replace, /<strong>1 code goes out to the buyer, in place of the reported one\.<\/strong>/)
  t.match(replace, /Taken from the stock of “Steam card”, oldest first: 4 available now\./)
  t.notMatch(replace, /fewer than that/)
  t.notMatch(replace, /name="note"/, 'a replacement takes no note')
  t.match(replace, new RegExp(`<form method="post" action="/portal/claims/${precise.id}/replace"`))
  t.equal((await apiClaim(app, shop, precise.id)).status, 'open', 'the confirmation changes nothing')
  const replaced = await app.inject({
    method: 'POST',
    url: `/portal/claims/${precise.id}/replace`,
    ...form({}),
    headers: { ...form({}).headers, ...session.headers }
  })
  t.equal(replaced.statusCode, 200)
  t.equal((await apiClaim(app, shop, precise.id)).status, 'replaced', 'confirmed: replaced as /v1 says')

  const refundOpen = main((await page(app, session, `/portal/claims/${precise.id}/refund`)).body)
  t.match(refundOpen, /<strong>The buyer gets 499\.90 ₽ back and the order is cancelled\.<\/strong>/)
  t.match(refundOpen, /The order was not completed yet, so nothing had been credited for it: the shop&#39;s balance does not change\./)
  const refundCompleted = main((await page(app, session, `/portal/claims/${late.id}/refund`)).body)
  t.match(refundCompleted, /The buyer gets 499\.90 ₽ back/)
  t.match(refundCompleted, /The order was completed, so the 499\.90 ₽ credited to the shop&#39;s balance for it is taken back: the balance goes down by 499\.90 ₽\./)

  // Two codes reported, one left in stock (7 added, 3 + 1 + 2 taken): the page says the replacement would be refused.
  const two = await buy(app, product, { quantity: 2 })
  const both = await openedClaim(app, two.id, { reason: 'not_working', text: 'Neither works' })
  const short = main((await page(app, session, `/portal/claims/${both.id}/replace`)).body)
  t.match(short, /2 codes go out to the buyer, in place of the reported ones\./)
  t.match(short, /oldest first: 1 available now\./)
  t.match(short, /The stock holds fewer than that: the replacement would be refused\./)

  const ru = await enterPortal(app, shop.shopId)
  const russian = main((await page(app, ru, '/portal/claims')).body)
  t.match(russian, /Выдано кодов: 1\. Покупатель не указал, какой из них не работает/)
  t.match(russian, /Кодов в претензии: 2 из 2 выданных/)
  t.match(main((await page(app, ru, `/portal/claims/${both.id}/replace`)).body),
    /Покупателю уйдут 2 кода вместо тех, что в претензии\./)
  t.match(main((await page(app, ru, `/portal/claims/${both.id}/refund`)).body), /Покупатель получит назад 999,80\s₽/)
  t.match(main((await page(app, ru, `/portal/claims/${late.id}/refund`)).body),
    /баланс уменьшится на 499,90\s₽/)
})
