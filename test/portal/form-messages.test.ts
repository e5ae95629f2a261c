// Every form of the portal, found by walking its pages (so a new form cannot be
// missed), sent bad input in both languages: each error a page shows is written
// for a person (docs/portal.md, human messages) — never the validator's wording,
// and on a Russian page no English words besides the names a Russian seller reads
// as they are (URL, HTTPS, API, a time zone's name, UTF-8).
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { buy, postAsBuyer } from '../fixtures/orders.js'
import { openClaim } from '../fixtures/claims.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { createEndpoint, localDelivery } from '../fixtures/webhooks.js'
import { putDeliveryEndpoint } from '../fixtures/delivery-endpoint.js'
import { createRule } from '../fixtures/chat-rules.js'

interface Field { name: string, kind: string, value: string }
interface PageForm { page: string, action: string, method: 'GET' | 'POST', multipart: boolean, fields: Field[] }

const VALIDATOR_WORDING = /\bmust\b|\bshould\b|NOT have|\bpattern\b|\bproperty\b|\bbody\.|\bquerystring\./
/** Latin-letter words a Russian error may hold: names read as they are. */
const LATIN_NAMES = new Set(['URL', 'HTTPS', 'https', 'API', 'NUL', 'UTF', 'Europe', 'Moscow', 'txt', 'Windows'])
const SKIPPED_ACTIONS = ['/portal/sign-out']

const decode = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&#39;/g, '\'')
  .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/\s+/g, ' ').trim()
const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]

/** The forms of a page (those that GET a filtered list or a confirmation too), with their named controls. */
function formsOf (page: string, html: string): PageForm[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)]
    .map(([, attributes, inner]) => ({
      page,
      action: (attribute(attributes, 'action') ?? page.split('?')[0]).replaceAll('&amp;', '&'),
      method: /method="post"/i.test(attributes) ? 'POST' as const : 'GET' as const,
      multipart: /multipart\/form-data/.test(attributes),
      fields: [...inner.matchAll(/<(input|textarea|select|button)\b([^>]*)>/g)].flatMap(([, tag, rest]) => {
        const name = attribute(rest, 'name')
        if (name === undefined) return []
        const kind = tag === 'input' ? (attribute(rest, 'type') ?? 'text') : tag
        return [{ name, kind, value: attribute(rest, 'value') ?? '' }]
      })
    }))
}

/** Every portal page reachable from Needs attention by its links (one per path), and their forms. */
async function walk (app: App, session: PortalSession): Promise<PageForm[]> {
  const seen = new Set<string>()
  const queue = ['/portal/attention']
  const forms: PageForm[] = []
  while (queue.length > 0 && seen.size < 120) {
    const url = queue.shift()!
    const path = url.split('?')[0]
    if (seen.has(path)) continue
    seen.add(path)
    const res = await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
    if (res.statusCode !== 200) continue
    const found = formsOf(url, res.body)
    forms.push(...found)
    const links = [...res.body.matchAll(/<a\b[^>]*\shref="(\/portal\/[^"#]*)"/g)].map(([, href]) => href)
    for (const href of [...links, ...found.filter((f) => f.method === 'GET').map((f) => f.action)]) {
      const target = href.replaceAll('&amp;', '&')
      if (!/^\/portal\/(assets|enter|signed-out)/.test(target)) queue.push(target)
    }
  }
  return forms
}

/** The form's fields with bad input: text boxes `text`, choices a value that is none of them. */
function badFields (pageForm: PageForm, text: string): Array<[string, string]> {
  return pageForm.fields.flatMap(({ name, kind, value }): Array<[string, string]> => {
    if (kind === 'hidden') return [[name, value]]
    if (kind === 'file') return []
    if (['select', 'radio', 'checkbox', 'button', 'submit'].includes(kind)) return [[name, 'ъ']]
    return [[name, kind === 'number' ? 'ъ' : text]]
  })
}

function send (app: App, session: PortalSession, pageForm: PageForm, fields: Array<[string, string]>) {
  const headers = { ...session.headers, 'hx-request': 'true' }
  if (pageForm.method === 'GET') {
    const query = new URLSearchParams(fields).toString()
    return app.inject({ method: 'GET', url: `${pageForm.action}?${query}`, headers: { cookie: session.cookie } })
  }
  if (!pageForm.multipart) {
    const body = form(Object.fromEntries(fields))
    const posted = { ...body.headers, ...headers }
    return app.inject({ method: 'POST', url: pageForm.action, headers: posted, payload: body.payload })
  }
  const boundary = '----walk-boundary'
  const parts = fields.map(([name, value]) =>
    `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  parts.push(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="коды.txt"\r\n` +
    `content-type: text/plain\r\n\r\n${'ж'.repeat(600)}\r\n`)
  return app.inject({
    method: 'POST',
    url: pageForm.action,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: parts.join('') + `--${boundary}--\r\n`
  })
}

/** The error texts a page shows: its summary, the fields' errors, and a problem page's text. */
function errorTexts (html: string): string[] {
  const texts = [
    ...[...html.matchAll(/<div class="error-summary"[\s\S]*?<\/div>/g)].map(([block]) => block),
    ...[...html.matchAll(/<p class="field-error"[\s\S]*?<\/p>/g)].map(([block]) => block),
    ...[...html.matchAll(/<div class="banner banner--error"[\s\S]*?<\/div>/g)].map(([block]) => block)
  ]
  if (texts.length === 0) texts.push(...[...html.matchAll(/<main\b[\s\S]*?<\/main>/g)].map(([block]) => block))
  return texts.map(decode)
}

async function shopWithEverything (app: App): Promise<ShopFixture> {
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' }, { title: 'Ключ активации' })
  const stocked = await stockProduct(app, shop, { autoDelivery: 'stock', lowStockThreshold: 5 }, { title: 'Подписка' })
  await addValues(app, shop, stocked.id, ['KEY-0001-AAAA', 'KEY-0002-BBBB'])
  const waiting = await buy(app, product)
  await postAsBuyer(app, waiting.id, 'Здравствуйте, где мой код?')
  const delivered = await buy(app, stocked)
  await openClaim(app, delivered.id, { reason: 'not_working', text: 'Код не подходит' })
  await createEndpoint(app, shop, { url: 'http://127.0.0.1:9/hooks' })
  await putDeliveryEndpoint(app, shop, 'http://127.0.0.1:9/deliver')
  await createRule(app, shop, { name: 'Спасибо', text: 'Спасибо за заказ!' })
  return shop
}

for (const locale of ['en', 'ru'] as const) {
  t.test(`every portal form, given bad input, answers in ${locale} words written for a person`, async (t) => {
    const app = await build(t, { ...localDelivery, VALUES_ENCRYPTION_KEY: stockKey(), PORTAL_RATE_LIMIT_MAX: 100_000 })
    const shop = await shopWithEverything(app)
    const session = await enterPortal(app, shop.shopId, { locale })
    const forms = (await walk(app, session)).filter((f) => !SKIPPED_ACTIONS.includes(f.action))
    const withInput = forms.filter((f) => f.fields.some((field) => field.kind !== 'hidden'))
    const actions = new Set(withInput.map((f) => f.action.split('?')[0]))
    const expectedForms = ['/portal/api-keys', '/portal/webhooks', '/portal/delivery-endpoint/test', '/portal/sales']
    for (const expected of [...expectedForms, '/portal/time-zone']) {
      t.ok(actions.has(expected), `the walk found the form ${expected}`)
    }
    const endpointForm = /^\/portal\/delivery-endpoint\/?(edit)?$/
    t.ok([...actions].some((a) => endpointForm.test(a)), 'the walk found the endpoint form')
    t.ok([...actions].some((a) => /^\/portal\/orders\/[^/]+\/messages$/.test(a)), 'the walk found the order reply')
    t.ok([...actions].some((a) => /^\/portal\/stock\/[^/]+\/upload$/.test(a)), 'the walk found the stock upload')
    t.ok([...actions].some((a) => /^\/portal\/chat-rules/.test(a)), 'the walk found the auto-replies forms')
    let refused = 0
    for (const pageForm of withInput) {
      for (const [what, text] of [['empty', ''], ['too long', 'ж'.repeat(12_000)]] as const) {
        const res = await send(app, session, pageForm, badFields(pageForm, text))
        const where = `${pageForm.action} (from ${pageForm.page}), ${what}`
        t.ok(res.statusCode < 500, `${where}: no 5xx (${res.statusCode})`)
        if (res.statusCode < 400) continue
        refused++
        const texts = errorTexts(res.body)
        t.ok(texts.length > 0, `${where}: the refusal is said on the page`)
        for (const message of texts) {
          const quoted = `"${message.slice(0, 160)}"`
          t.notMatch(message, VALIDATOR_WORDING, `${where}: no validator wording in ${quoted}`)
          if (locale !== 'ru') continue
          const english = (message.match(/[A-Za-z]{2,}/g) ?? []).filter((word) => !LATIN_NAMES.has(word))
          t.same(english, [], `${where}: no English words in ${quoted}`)
        }
      }
    }
    t.ok(refused >= withInput.length, `bad input refused at least once a form (${refused} of ${withInput.length * 2})`)
  })
}
