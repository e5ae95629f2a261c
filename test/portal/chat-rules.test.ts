// The portal's Auto-replies page (docs/portal.md, docs/chat-rules.md): rules
// added, previewed, disabled and deleted through the /v1 calls' own actions, in
// both languages; refusals (CSRF, read-only, another shop's rule, bad input) change nothing.
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { createProduct } from '../fixtures/products.js'
import { buy, postAsBuyer } from '../fixtures/orders.js'
import { createRule, ruleCall, ruleMessages } from '../fixtures/chat-rules.js'

type Sender = PortalSession | { headers: Record<string, string> }
const post = (app: App, session: Sender, url: string, fields: Record<string, string | string[]> = {}) => app.inject({
  method: 'POST',
  url,
  ...form(fields),
  headers: { ...form({}).headers, ...session.headers, 'hx-request': 'true' }
})
const page = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const rulesOf = async (app: App, shop: ShopFixture) => (await ruleCall(app, shop, 'GET')).json().data.rules

const helpRule = { name: 'Help', trigger: 'message.keyword', keywords: '!help\nпомощь', text: 'Commands: !seller', priority: '10', enabled: 'true', intent: 'save' }

t.test('add, preview, disable and delete a rule, in English and in Russian', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  for (const locale of ['en', 'ru'] as const) {
    const session = await enterPortal(app, shop.shopId, { locale })
    const list = await page(app, session, '/portal/chat-rules')
    t.equal(list.statusCode, 200)
    t.match(list.body, locale === 'en' ? /<h1>Auto-replies<\/h1>/ : /<h1>Автоответы<\/h1>/)
    const blank = await page(app, session, '/portal/chat-rules/new')
    t.match(blank.body, /\{\{productTitle\}\}/, 'the placeholders are listed beside the text')
    t.match(blank.body, new RegExp(`<option value="${order.id}"`), 'a recent order to preview with')

    const preview = await post(app, session, '/portal/chat-rules', {
      ...helpRule, text: 'Order {{orderId}}: {{amount}} RUB', orderId: order.id, intent: 'preview'
    })
    t.equal(preview.statusCode, 200)
    t.match(preview.body, `Order ${order.id}: 499.90 RUB`)
    t.same(await rulesOf(app, shop), [], 'a preview saves nothing')

    const created = await post(app, session, '/portal/chat-rules', helpRule)
    t.equal(created.statusCode, 200)
    const [rule] = await rulesOf(app, shop)
    t.match(rule, { name: 'Help', trigger: 'message.keyword', keywords: ['!help', 'помощь'], enabled: true, priority: 10 })
    t.match(created.body, locale === 'en' ? 'The rule “Help” is saved.' : 'Правило «Help» сохранено.')

    const disabled = await post(app, session, `/portal/chat-rules/${rule.id}/enabled`, { enabled: 'false' })
    t.equal(disabled.statusCode, 200)
    t.match((await rulesOf(app, shop))[0], { enabled: false, keywords: ['!help', 'помощь'], priority: 10 }, 'only disabled')

    const confirm = await page(app, session, `/portal/chat-rules/${rule.id}/delete`)
    t.match(confirm.body, locale === 'en' ? /Confirm/ : /Подтвердить/)
    t.same((await rulesOf(app, shop)).length, 1, 'asking deletes nothing')
    t.equal((await post(app, session, `/portal/chat-rules/${rule.id}/delete`)).statusCode, 200)
    t.same(await rulesOf(app, shop), [])
  }
})

t.test('a bad rule is shown at its field, in the session\'s language; the rule saved answers buyers', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const ru = await enterPortal(app, shop.shopId, { locale: 'ru' })
  const bad = await post(app, ru, '/portal/chat-rules', { ...helpRule, keywords: '', text: 'Hi {{nope}}' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /[Вв]ведите от 1 до 20 ключевых слов/)
  t.match(bad.body, /[Вв]ставки \{\{nope\}\} нет/)
  t.match(bad.body, 'href="#keywords"')
  t.same(await rulesOf(app, shop), [])
  const en = await enterPortal(app, shop.shopId, { locale: 'en' })
  const saved = await post(app, en, '/portal/chat-rules', helpRule)
  t.equal(saved.statusCode, 200)
  const [rule] = await rulesOf(app, shop)
  const edit = await page(app, en, `/portal/chat-rules/${rule.id}`)
  t.match(edit.body, '!help\nпомощь')
  const order = await buy(app, product)
  await postAsBuyer(app, order.id, 'ПОМОЩЬ пожалуйста')
  t.same((await ruleMessages(app, shop, order.id)).map((m) => m.text), ['Commands: !seller'])
  t.match((await page(app, en, '/portal/chat-rules')).body, '1 message<')
  t.match((await page(app, en, '/portal/activity')).body, 'Added the auto-reply “Help”')
})

t.test('refusals: no CSRF token, a read-only session, another shop\'s rule', async (t) => {
  const app = await build(t)
  const [shop, other] = [await createShop(app, 'Mine'), await createShop(app, 'Other')]
  const rule = await createRule(app, shop)
  const theirs = await createRule(app, other)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const noCsrf = await post(app, { headers: { cookie: session.cookie } }, `/portal/chat-rules/${rule.id}/delete`)
  t.equal(noCsrf.statusCode, 403)
  t.equal(noCsrf.json().error.code, 'CSRF_INVALID')
  const readOnly = await enterPortal(app, shop.shopId, { locale: 'en', readOnly: true })
  const list = await page(app, readOnly, '/portal/chat-rules')
  t.notMatch(list.body, 'Add rule', 'a read-only session is offered no change')
  for (const url of [`/portal/chat-rules/${rule.id}/delete`, `/portal/chat-rules/${rule.id}/enabled`, '/portal/chat-rules']) {
    const refused = await post(app, readOnly, url, helpRule)
    t.equal(refused.statusCode, 403)
    t.equal(refused.json().error.code, 'READ_ONLY')
  }
  t.equal((await page(app, session, `/portal/chat-rules/${theirs.id}`)).statusCode, 404)
  t.equal((await post(app, session, `/portal/chat-rules/${theirs.id}/delete`)).statusCode, 404)
  t.equal((await rulesOf(app, shop)).length, 1)
  t.equal((await rulesOf(app, other)).length, 1)
})
