// The operator API (docs/api-rules.md, the operator API): its token, shops, rates, categories.
import t from 'tap'
import { MAX_FAILED_TOKENS } from '../../routes/internal/index.js'
import { build, createShop, internalHeaders } from '../helper.js'

t.test('operator API', async (t) => {
  const app = await build(t)

  t.test('needs the internal token', async (t) => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: internalHeaders.authorization + 'x' }]) {
      const res = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers, payload: { name: 'x' } })
      t.equal(res.statusCode, 401)
      t.equal(res.json().error.code, 'API_KEY_INVALID')
    }
    const shop = await createShop(app)
    const withShopKey = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: shop.headers, payload: { name: 'x' } })
    t.equal(withShopKey.statusCode, 401, 'a shop key is not the internal token')
  })

  t.test('unknown routes ask for the token first, so they cannot be listed without it', async (t) => {
    const anonymous = await app.inject({ method: 'GET', url: '/internal/v1/no-such-route' })
    t.equal(anonymous.statusCode, 401)
    t.equal(anonymous.json().error.code, 'API_KEY_INVALID')
    const known = await app.inject({ method: 'GET', url: '/internal/v1/shops/00000000-0000-4000-8000-000000000000/ledger' })
    t.equal(known.statusCode, 401, 'same answer as for a route that exists')
    const withToken = await app.inject({ method: 'GET', url: '/internal/v1/no-such-route', headers: internalHeaders })
    t.equal(withToken.statusCode, 404)
    t.equal(withToken.json().error.code, 'NOT_FOUND')
  })

  t.test('an IP sending wrong tokens is refused with 429 after MAX_FAILED_TOKENS', async (t) => {
    const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.9`
    const statuses = []
    for (let i = 0; i < MAX_FAILED_TOKENS + 2; i++) {
      const res = await app.inject({ method: 'GET', url: '/internal/v1/no-such-route', headers: { authorization: `Bearer guess-${i}-0123456789abcdef` }, remoteAddress: ip })
      statuses.push(res.statusCode)
    }
    t.same(statuses, [...Array(MAX_FAILED_TOKENS).fill(401), 429, 429])
    const right = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name: 'x' }, remoteAddress: ip })
    t.equal(right.statusCode, 429, 'until the window ends, not even the right token is tried from that IP')
    t.equal(right.json().error.code, 'RATE_LIMIT')
    const retryAfter = Number(right.headers['retry-after'])
    t.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`)
    const elsewhere = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name: 'x' }, remoteAddress: '10.255.255.1' })
    t.equal(elsewhere.statusCode, 201, 'other addresses are unaffected')
  })

  t.test('is absent without INTERNAL_TOKEN', async (t) => {
    const closed = await build(t, { INTERNAL_TOKEN: undefined })
    const res = await closed.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name: 'x' } })
    t.equal(res.statusCode, 404)
    t.equal(res.json().error.code, 'NOT_FOUND')
  })

  t.test('shops', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name: '  Key Store  ' } })
    t.equal(res.statusCode, 201)
    t.match(res.json().data.shop, { id: /^[0-9a-f-]{36}$/, name: 'Key Store', createdAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ })
    for (const payload of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 5 }]) {
      const bad = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload })
      t.equal(bad.statusCode, 400, JSON.stringify(payload))
    }
  })

  t.test('currency rates: create, update in place, validate', async (t) => {
    const shop = await createShop(app)
    const url = `/internal/v1/shops/${shop.shopId}/currency-rates/USD`
    const first = await app.inject({ method: 'PUT', url, headers: internalHeaders, payload: { rate: 92.5134 } })
    t.equal(first.statusCode, 200)
    t.match(first.json().data.rate, { code: 'USD', rate: 92.5134 })
    const second = await app.inject({ method: 'PUT', url, headers: internalHeaders, payload: { rate: 95 } })
    t.equal(second.json().data.rate.id, first.json().data.rate.id, 'same id after an update')
    t.equal(second.json().data.rate.rate, 95)
    const listed = await app.inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
    t.same(listed.json().data.rates.map((r: { code: string, rate: number }) => [r.code, r.rate]), [['USD', 95]])
    for (const rate of [0, -1, 1.1234567, 2e9]) {
      const bad = await app.inject({ method: 'PUT', url, headers: internalHeaders, payload: { rate } })
      t.equal(bad.statusCode, 400, `rate ${rate}`)
    }
    const badCode = await app.inject({ method: 'PUT', url: `/internal/v1/shops/${shop.shopId}/currency-rates/usd`, headers: internalHeaders, payload: { rate: 1 } })
    t.equal(badCode.statusCode, 400)
    const noShop = await app.inject({ method: 'PUT', url: '/internal/v1/shops/00000000-0000-4000-8000-000000000000/currency-rates/USD', headers: internalHeaders, payload: { rate: 1 } })
    t.equal(noShop.statusCode, 404)
  })

  t.test('categories: leaves only, with filters, listed to sellers', async (t) => {
    const shop = await createShop(app)
    const input = {
      pathRu: 'Игры / Ключи GOG',
      pathEn: 'games/gog-keys',
      filters: [{ name: 'Регион', type: 'buttons', affectsPrice: true, options: [{ label: 'Европа' }, { label: 'Весь мир' }] }]
    }
    const res = await app.inject({ method: 'POST', url: '/internal/v1/categories', headers: internalHeaders, payload: input })
    t.equal(res.statusCode, 201)
    const category = res.json().data.category
    t.match(category, { pathRu: input.pathRu, pathEn: input.pathEn, filters: [{ name: 'Регион', type: 'buttons', affectsPrice: true, options: [{ label: 'Европа' }, { label: 'Весь мир' }] }] })
    const listed = await app.inject({ method: 'GET', url: '/v1/categories', headers: shop.headers })
    t.same(listed.json().data.categories.find((c: { id: string }) => c.id === category.id), category)

    const duplicate = await app.inject({ method: 'POST', url: '/internal/v1/categories', headers: internalHeaders, payload: input })
    t.equal(duplicate.statusCode, 400)
    const ancestor = await app.inject({ method: 'POST', url: '/internal/v1/categories', headers: internalHeaders, payload: { ...input, pathEn: 'games' } })
    t.equal(ancestor.statusCode, 400, 'a parent of a leaf cannot be a category')
    const descendant = await app.inject({ method: 'POST', url: '/internal/v1/categories', headers: internalHeaders, payload: { ...input, pathEn: 'games/gog-keys/extra' } })
    t.equal(descendant.statusCode, 400, 'a leaf cannot get children')
  })

  t.test('a parent and its child created at once: exactly one of them succeeds', async (t) => {
    const create = (pathEn: string) => app.inject({
      method: 'POST',
      url: '/internal/v1/categories',
      headers: internalHeaders,
      payload: { pathRu: pathEn.split('/').join(' / '), pathEn, filters: [] }
    })
    const pairs = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      Promise.all([create(`race-${i}/parent`), create(`race-${i}/parent/child`)])))
    for (const [i, pair] of pairs.entries()) {
      t.same(pair.map((r) => r.statusCode).sort(), [201, 400], `pair ${i}: ${pair.map((r) => r.body).join(' | ')}`)
      const refused = pair.find((r) => r.statusCode === 400)!
      t.equal(refused.json().error.code, 'VALIDATION_ERROR')
    }
  })

  t.test('the seeded taxonomy: leaf paths, Russian and English, with buttons filters', async (t) => {
    const shop = await createShop(app)
    const { categories } = (await app.inject({ method: 'GET', url: '/v1/categories', headers: shop.headers })).json().data
    t.ok(categories.length >= 25)
    for (const c of categories) {
      t.match(c.pathEn, /^[a-z0-9-]+(\/[a-z0-9-]+)+$/)
      t.ok(c.pathRu.split(' / ').length >= 2, c.pathRu)
      t.notOk(categories.some((o: { pathEn: string }) => o.pathEn.startsWith(c.pathEn + '/')), `${c.pathEn} is a leaf`)
    }
    t.ok(categories.some((c: { filters: Array<{ type: string }> }) => c.filters.some((f) => f.type === 'buttons')))
    t.ok(categories.find((c: { pathEn: string }) => c.pathEn === 'gift-cards/steam'))
  })
})
