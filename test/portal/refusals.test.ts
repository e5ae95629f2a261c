// What the portal refuses whole (docs/portal.md): more changes a minute than
// PORTAL_RATE_LIMIT_MAX in one session (429, Retry-After, a page in the session's
// language); a pasted text or file the multipart parser would cut, or text that
// is not UTF-8 (a cp1251 file, a crafted form), each with a message at its field
// and nothing stored.
import t from 'tap'
import { build, createShop, internalHeaders, type App, type ShopFixture } from '../helper.js'
import { enterPortal, form } from '../fixtures/portal.js'
import { stockCall, stockKey, stockProduct } from '../fixtures/stock.js'

/** A multipart body of fields and one file, each given as bytes or text. */
function multipart (fields: Record<string, string | Buffer>, file?: Buffer) {
  const boundary = '----portal-refusal-boundary'
  const parts: Buffer[] = Object.entries(fields).flatMap(([name, value]) => [
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n`),
    Buffer.from(value),
    Buffer.from('\r\n')
  ])
  if (file) {
    parts.push(
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="codes.txt"\r\n` +
        'content-type: text/plain\r\n\r\n'),
      file,
      Buffer.from('\r\n')
    )
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { 'content-type': `multipart/form-data; boundary=${boundary}`, payload: Buffer.concat(parts) }
}

const availableOf = async (app: App, shop: ShopFixture, productId: string) =>
  (await stockCall(app, shop, productId, 'GET', '')).json().data.stock.available as number

t.test('a session may make PORTAL_RATE_LIMIT_MAX changes a minute; beyond, 429 in its language', async (t) => {
  const [a, b] = [await build(t, { PORTAL_RATE_LIMIT_MAX: 3 }), await build(t, { PORTAL_RATE_LIMIT_MAX: 3 })]
  const { shopId } = await createShop(a)
  const ru = await enterPortal(a, shopId)
  const keyCount = async () => (await a.inject({
    method: 'GET', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders
  })).json().data.apiKeys.length
  const before = await keyCount()
  const create = (app: App, name: string, headers = ru.headers) =>
    app.inject({ method: 'POST', url: '/portal/api-keys', ...form({ name }), headers: { ...form({}).headers, ...headers } })
  const made = [await create(a, 'one'), await create(b, 'two'), await create(a, 'three')]
  t.same(made.map((res) => res.statusCode < 400), [true, true, true], 'three changes, on two instances')
  t.equal(made[2].headers['ratelimit-remaining'], '0', 'the window is shared through Redis')
  for (let i = 0; i < 3; i++) {
    const page = await a.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: ru.cookie } })
    t.equal(page.statusCode, 200, 'pages are not counted')
  }
  const refused = await create(b, 'four')
  t.equal(refused.statusCode, 429)
  t.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60, 'Retry-After')
  t.match(refused.headers['content-type'], /^text\/html/)
  t.match(refused.body, /<html lang="ru">/)
  t.match(refused.body, /Слишком много изменений/)
  t.match(refused.body, /больше 3 изменений/)
  t.equal(await keyCount(), before + 3, 'the fourth key was not made')
  const signedOut = await a.inject({ method: 'POST', url: '/portal/sign-out', headers: ru.headers })
  t.equal(signedOut.statusCode, 303, 'signing out is not counted: always possible')

  const en = await enterPortal(a, shopId, { locale: 'en' })
  t.ok((await create(a, 'other session', en.headers)).statusCode < 400, 'another session has its own count')
  for (let i = 0; i < 2; i++) await create(a, `en ${i}`, en.headers)
  const english = await create(a, 'too many', en.headers)
  t.equal(english.statusCode, 429)
  t.match(english.body, /Too many changes[\s\S]*more than 3 changes in a minute/)
})

t.test('the default is 60 changes a minute', async (t) => {
  const app = await build(t)
  t.equal(app.config.PORTAL_RATE_LIMIT_MAX, 60)
  const { shopId } = await createShop(app)
  const session = await enterPortal(app, shopId, { locale: 'en' })
  const res = await app.inject({
    method: 'POST',
    url: '/portal/language',
    ...form({ locale: 'en' }),
    headers: { ...form({}).headers, ...session.headers }
  })
  t.equal(res.headers['ratelimit-limit'], '60')
  t.equal(res.headers['ratelimit-remaining'], '59')
})

t.test('stock upload: text that would be cut, or is not UTF-8, is refused at its field; nothing stored', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const upload = (fields: Record<string, string | Buffer>, file?: Buffer, headers = session.headers) => {
    const body = multipart(fields, file)
    return app.inject({
      method: 'POST',
      url: `/portal/stock/${product.id}/upload`,
      payload: body.payload,
      headers: { 'content-type': body['content-type'], ...headers }
    })
  }
  // 9 000 codes of 1 000 characters: fewer than the API's 10 000, more than the 8 MiB a field or file may hold.
  const long = Array.from({ length: 9000 }, (_, i) => `${String(i).padStart(5, '0')}-${'x'.repeat(994)}`).join('\n')
  const cp1251 = Buffer.from([0xca, 0xee, 0xe4, 0x2d, 0x31, 0x0a, 0xca, 0xee, 0xe4, 0x2d, 0x32]) // «Код-1\nКод-2»

  const cases = [
    ['a pasted text over the field limit', { values: long }, undefined, 'values', /longer than 8388608 bytes/],
    ['a file over the file limit', {}, Buffer.from(long), 'file', /larger than 8388608 bytes/],
    ['a cp1251 file', { values: 'GOOD-1' }, cp1251, 'file', /not UTF-8 text \(for example, it was saved as Windows/],
    ['a pasted text not in UTF-8', { values: cp1251 }, undefined, 'values', /pasted text is not UTF-8/]
  ] as const
  for (const [what, fields, file, field, message] of cases) {
    const res = await upload(fields, file)
    t.equal(res.statusCode, 400, what)
    t.match(res.body, new RegExp(`<p class="field-error" id="${field}-error">[^<]*<span[^>]*>Error:</span>[^<]*` +
      message.source), `${what}: the message at the ${field} field`)
    t.match(res.body, new RegExp(`<a href="#${field}">`), `${what}: in the summary, linked to the field`)
    t.equal(await availableOf(app, shop, product.id), 0, `${what}: nothing stored`)
  }

  const ru = await enterPortal(app, shop.shopId)
  const russian = await upload({}, cp1251, ru.headers)
  t.match(russian.body, /Файл не в кодировке UTF-8/, "in the session's language")

  const utf8 = await upload({ values: 'КЛЮЧ-ПЕРВЫЙ\nКЛЮЧ-ВТОРОЙ' }, Buffer.from('\uFEFFКЛЮЧ-ТРЕТИЙ\r\nКЛЮЧ-ЧЕТВЁРТЫЙ\r\n'))
  t.equal(utf8.statusCode, 201, 'UTF-8 text, pasted and in a file, is taken')
  t.equal(await availableOf(app, shop, product.id), 4)
  const items = (await stockCall(app, shop, product.id, 'GET', '/items')).json().data.items
  t.same(items.map((i: { preview: string }) => i.preview).sort(), ['КЛЮЧ…', 'КЛЮЧ…', 'КЛЮЧ…', 'КЛЮЧ…'])
})

t.test('an urlencoded form with a field not in UTF-8 is refused, naming the field; nothing changes', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const session = await enterPortal(app, shopId, { locale: 'en' })
  const keys = async () => (await app.inject({
    method: 'GET', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders
  })).json().data.apiKeys.length
  const before = await keys()
  const bodies = [
    ['percent-encoded cp1251', 'name=%CA%EE%E4'],
    ['raw cp1251 bytes', Buffer.concat([Buffer.from('name='), Buffer.from([0xca, 0xee, 0xe4])])],
    ['a malformed escape', 'name=%E0%A4%A']
  ] as const
  for (const [what, payload] of bodies) {
    const res = await app.inject({
      method: 'POST',
      url: '/portal/api-keys',
      payload,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...session.headers }
    })
    t.equal(res.statusCode, 400, what)
    t.match(res.headers['content-type'], /^text\/html/)
    t.match(res.body, /name: the text is not in UTF-8/, `${what}: names the field`)
  }
  t.equal(await keys(), before, 'no key made')
  const fine = await app.inject({
    method: 'POST',
    url: '/portal/api-keys',
    ...form({ name: 'Ключ для склада' }),
    headers: { ...form({}).headers, ...session.headers }
  })
  t.ok(fine.statusCode < 400, 'UTF-8 text is taken')
  t.match(fine.body, /Ключ для склада/)
})
