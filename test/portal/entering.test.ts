// Entering the seller portal (docs/portal.md): the operator's link and its
// bounds, single use, expiry; bad tokens (unknown, malformed, used, expired) get
// 401 and no cookie; openings limited per client IP; the session cookie's flags
// (a browser-session cookie: no Max-Age); the pages' security headers.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { build, createShop, internalHeaders } from '../helper.js'
import { portalLink } from '../fixtures/portal.js'

const linkOf = (shopId: string) => `/internal/v1/shops/${shopId}/portal-links`

t.test('the link: bounds, defaults, and an unknown shop', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  for (const payload of [
    { ttlSeconds: 9 },
    { ttlSeconds: 604_801 },
    { ttlSeconds: 60.5 },
    { readOnly: 'yes' },
    { locale: 'de' },
    { other: 1 }
  ]) {
    const res = await app.inject({ method: 'POST', url: linkOf(shopId), headers: internalHeaders, payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
  const started = Date.now()
  for (const ttlSeconds of [10, 604_800]) {
    const res = await app.inject({
      method: 'POST',
      url: linkOf(shopId),
      headers: internalHeaders,
      payload: { ttlSeconds }
    })
    t.equal(res.statusCode, 201)
    const ttl = Date.parse(res.json().data.expiresAt) - started
    t.ok(ttl > (ttlSeconds - 5) * 1000 && ttl < (ttlSeconds + 30) * 1000, `expires in about ${ttlSeconds} s`)
  }
  const plain = await app.inject({ method: 'POST', url: linkOf(shopId), headers: internalHeaders })
  t.equal(plain.statusCode, 201, 'no body: the defaults')
  t.match(plain.json().data.url, /^http:\/\/files\.test\/portal\/enter\?token=portal_link_[A-Za-z0-9_-]{43}$/)
  const hour = Date.parse(plain.json().data.expiresAt) - started
  t.ok(hour > 3590_000 && hour < 3630_000, 'an hour by default')
  const unknown = await app.inject({
    method: 'POST',
    url: linkOf('0b7c5a7e-3f41-4f3e-9a51-2f0f0c1d2e3f'),
    headers: internalHeaders,
    payload: {}
  })
  t.equal(unknown.statusCode, 404)
  const noToken = await app.inject({ method: 'POST', url: linkOf(shopId), payload: {} })
  t.equal(noToken.statusCode, 401)
})

t.test('a link opens once: 303 to /portal/ with the cookie; then, and for bad tokens, 401 without one', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const url = await portalLink(app, shopId)
  const first = await app.inject({ method: 'GET', url })
  t.equal(first.statusCode, 303)
  t.equal(first.headers.location, '/portal/')
  const cookie = String(first.headers['set-cookie'])
  t.match(
    cookie,
    /^portal_session=portal_sess_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/,
    'HttpOnly, SameSite=Lax, Path=/, not Secure on http'
  )
  const home = await app.inject({ method: 'GET', url: '/portal/', headers: { cookie: cookie.split(';')[0] } })
  t.equal(home.statusCode, 303)
  t.equal(home.headers.location, '/portal/attention')

  const bad = [
    ['used', url],
    ['unknown', `/portal/enter?token=portal_link_${'A'.repeat(43)}`],
    ['malformed', '/portal/enter?token=abc'],
    ['malformed (too long)', `/portal/enter?token=portal_link_${'A'.repeat(5000)}`],
    ['repeated', '/portal/enter?token=x&token=y'],
    ['missing', '/portal/enter']
  ]
  for (const [what, badUrl] of bad) {
    const res = await app.inject({ method: 'GET', url: badUrl })
    t.equal(res.statusCode, 401, what)
    t.equal(res.headers['set-cookie'], undefined, `${what}: no cookie`)
    t.match(res.headers['content-type'], /^text\/html/)
    t.match(res.body, /Ссылка больше не действует/)
    t.match(res.body, /This link is no longer valid/)
  }
})

t.test('openings are limited per client IP, across instances; 429 is a page with Retry-After', async (t) => {
  const [a, b] = [await build(t, { PUBLIC_RATE_LIMIT_MAX: 3 }), await build(t, { PUBLIC_RATE_LIMIT_MAX: 3 })]
  const { shopId } = await createShop(a)
  const open = (app: typeof a, url: string, remoteAddress = '203.0.113.7') =>
    app.inject({ method: 'GET', url, remoteAddress })
  const guesses = [
    await open(a, '/portal/enter?token=portal_link_guess1'),
    await open(b, '/portal/enter?token=portal_link_guess2'),
    await open(a, '/portal/enter')
  ]
  t.same(guesses.map((res) => res.statusCode), [401, 401, 401], 'three bad openings, on two instances')
  t.equal(guesses[2].headers['ratelimit-remaining'], '0', 'the window is shared through Redis')
  const link = await portalLink(a, shopId)
  const refused = await open(b, link)
  t.equal(refused.statusCode, 429, 'the fourth, even with a good link, is refused')
  t.match(refused.headers['content-type'], /^text\/html/, 'as a page')
  t.match(refused.body, /Слишком много открытых ссылок[\s\S]*lang="en"[\s\S]*Too many links opened/, 'in both languages')
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After')
  t.notOk(refused.headers['set-cookie'], 'no session')
  const elsewhere = await open(a, link, '198.51.100.9')
  t.equal(elsewhere.statusCode, 303, 'another address is not limited: the same link opens')
  t.match(String(elsewhere.headers['set-cookie']), /^portal_session=portal_sess_/, 'and starts a session')
})

t.test('an expired link starts no session', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const url = await portalLink(app, shopId, { ttlSeconds: 10 })
  await app.db.execute(sql`update portal_links set expires_at = now() - interval '1 millisecond'`)
  const res = await app.inject({ method: 'GET', url })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['set-cookie'], undefined)
})

t.test('two openings at once: one session', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const url = await portalLink(app, shopId)
  const answers = await Promise.all(Array.from({ length: 5 }, () => app.inject({ method: 'GET', url })))
  t.same(answers.map((a) => a.statusCode).sort(), [303, 401, 401, 401, 401])
})

t.test('on https the cookie is __Host- and Secure', async (t) => {
  const app = await build(t, { PUBLIC_BASE_URL: 'https://seller.example' })
  const { shopId } = await createShop(app)
  const res = await app.inject({ method: 'GET', url: await portalLink(app, shopId) })
  t.match(
    String(res.headers['set-cookie']),
    /^__Host-portal_session=portal_sess_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/
  )
  const cookie = String(res.headers['set-cookie']).split(';')[0]
  t.equal((await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie } })).statusCode, 200)
  const plainName = `portal_session=${cookie.split('=')[1]}`
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: plainName } })).statusCode,
    401,
    'the https name only'
  )
})

t.test(
  'headers: CSP without inline script, no framing, no referrer, no caching; frame-ancestors when configured',
  async (t) => {
    const app = await build(t)
    const { shopId } = await createShop(app)
    const enter = await app.inject({ method: 'GET', url: await portalLink(app, shopId) })
    const cookie = String(enter.headers['set-cookie']).split(';')[0]
    for (const res of [
      enter,
      await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie } }),
      await app.inject({ method: 'GET', url: '/portal/api-keys' })
    ]) {
      const csp = String(res.headers['content-security-policy'])
      t.match(csp, /script-src 'self'(;|$)/)
      t.notMatch(csp, /unsafe-inline|unsafe-eval/)
      t.match(csp, /frame-ancestors 'none'/)
      t.equal(res.headers['x-frame-options'], 'DENY')
      t.equal(res.headers['referrer-policy'], 'no-referrer')
      t.equal(res.headers['cache-control'], 'no-store')
    }
    const page = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie } })
    t.notMatch(page.body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script element')
    t.notMatch(page.body, /\son[a-z]+=/i, 'no inline event handler')
    t.notMatch(page.body, /style=/, 'no inline style')
    const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1])
    t.equal(scripts.length, 2, 'htmx and the portal\'s own script')
    for (const src of scripts) {
      const script = await app.inject({ method: 'GET', url: src })
      t.equal(script.statusCode, 200)
      t.match(script.headers['content-type'], /javascript/)
    }
    t.equal(
      (await app.inject({ method: 'GET', url: '/portal/assets/htmx.js' })).statusCode,
      404,
      "only the portal's own assets"
    )

    const framed = await build(t, { PORTAL_FRAME_ANCESTORS: 'https://market.example, https://admin.market.example' })
    const res = await framed.inject({ method: 'GET', url: '/portal/api-keys' })
    t.match(
      String(res.headers['content-security-policy']),
      /frame-ancestors https:\/\/market\.example https:\/\/admin\.market\.example/
    )
    t.equal(res.headers['x-frame-options'], undefined)
  }
)
