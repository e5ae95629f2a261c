// Links and sessions (docs/portal.md, "Links and sessions"): the operator's
// revocation voids unused links too; HEAD never uses a link up; a link of another
// shop asks before switching and is used only on a confirmation carrying the
// browser's session's CSRF token; sign-out ends the session; every page names the
// shop and shows when the session ends.
import t from 'tap'
import { build, createShop, internalHeaders } from '../helper.js'
import { enterPortal, form, portalLink } from '../fixtures/portal.js'
import { recordSecrets } from '../fixtures/log-sweep.js'

const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]
const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('token')!

t.test("revoking a shop's sessions also voids its unused links; another shop's stay good", async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const unused = await portalLink(app, shopId)
  const otherLink = await portalLink(app, other.shopId)
  const session = await enterPortal(app, shopId)
  const revoke = await app.inject({
    method: 'POST',
    url: `/internal/v1/shops/${shopId}/portal-sessions/revoke`,
    headers: internalHeaders
  })
  t.equal(revoke.statusCode, 200)
  t.same(revoke.json().data, { revoked: 1 }, 'the count is of sessions')
  const opened = await app.inject({ method: 'GET', url: unused })
  t.equal(opened.statusCode, 401, 'the unused link answers as a used one')
  t.equal(opened.headers['set-cookie'], undefined, 'and starts no session')
  t.equal((await app.inject({ method: 'HEAD', url: unused })).statusCode, 401)
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/stock', headers: { cookie: session.cookie } })).statusCode,
    401
  )
  t.equal((await app.inject({ method: 'GET', url: otherLink })).statusCode, 303, "another shop's link still opens")
  const fresh = await portalLink(app, shopId)
  t.equal((await app.inject({ method: 'GET', url: fresh })).statusCode, 303, 'a link made afterwards opens')
})

t.test('HEAD says whether a link would open and never uses it up; only GET does', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const url = await portalLink(app, shopId)
  for (let i = 0; i < 3; i++) {
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200, `HEAD ${i + 1}: the link would open`)
    t.equal(head.headers['set-cookie'], undefined, 'no session')
    t.equal(head.body, '')
    t.equal(head.headers['cache-control'], 'no-store')
  }
  const get = await app.inject({ method: 'GET', url })
  t.equal(get.statusCode, 303, 'GET opens it after the HEADs')
  t.match(String(get.headers['set-cookie']), /^portal_session=portal_sess_/)
  t.equal((await app.inject({ method: 'HEAD', url })).statusCode, 401, 'then HEAD says it is used')
  for (const bad of ['/portal/enter', '/portal/enter?token=abc', `/portal/enter?token=portal_link_${'A'.repeat(43)}`]) {
    t.equal((await app.inject({ method: 'HEAD', url: bad })).statusCode, 401, bad)
  }
})

t.test('a link of another shop asks first, naming both; only the confirmation uses it', async (t) => {
  const app = await build(t)
  const mine = await createShop(app, 'Books & Keys')
  const theirs = await createShop(app, 'Attacker <Games>')
  const session = await enterPortal(app, mine.shopId, { locale: 'en' })
  const link = await portalLink(app, theirs.shopId)
  const asked = await app.inject({ method: 'GET', url: link, headers: { cookie: session.cookie } })
  t.equal(asked.statusCode, 200)
  t.equal(asked.headers['set-cookie'], undefined, 'no new session yet')
  t.equal(asked.headers['cache-control'], 'no-store')
  t.match(asked.body, /<html lang="en">/, "in the session's language")
  t.match(asked.body, /Switch to another shop\?/)
  t.match(asked.body, /signed in to the shop “Books &amp; Keys”/, 'names the current shop')
  t.match(asked.body, /for the shop “Attacker &lt;Games&gt;”/, "names the link's shop, escaped")
  t.match(asked.body, /<form method="post" action="\/portal\/enter"/)
  t.equal((await app.inject({ method: 'HEAD', url: link })).statusCode, 200, 'the link is not used')
  const still = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })
  t.equal(still.statusCode, 200, 'the session goes on')
  t.match(still.body, /Books &amp; Keys/)

  const token = tokenOf(link)
  const refusals = [
    ['no cookie (a cross-site post)', {}, { token, csrf: session.csrf }],
    ['no CSRF token', { cookie: session.cookie }, { token }],
    ['a wrong CSRF token', { cookie: session.cookie }, { token, csrf: 'x'.repeat(43) }]
  ] as const
  for (const [what, headers, fields] of refusals) {
    const res = await app.inject({
      method: 'POST',
      url: '/portal/enter',
      ...form(fields),
      headers: { ...form({}).headers, ...headers }
    })
    t.equal(res.statusCode, 403, what)
    t.equal(res.headers['set-cookie'], undefined, `${what}: no session`)
    t.match(res.body, /The switch was not made/)
    t.equal((await app.inject({ method: 'HEAD', url: link })).statusCode, 200, `${what}: the link is not used`)
  }

  const switched = await app.inject({
    method: 'POST',
    url: '/portal/enter',
    ...form({ token, csrf: session.csrf }),
    headers: { ...form({}).headers, cookie: session.cookie }
  })
  t.equal(switched.statusCode, 303, 'confirmed')
  t.equal(switched.headers.location, '/portal/')
  const cookie = cookieOf(switched)
  recordSecrets('', [cookie.split('=')[1]])
  const page = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie } })
  t.match(page.body, /Attacker &lt;Games&gt;/, "now in the link's shop")
  t.equal((await app.inject({ method: 'HEAD', url: link })).statusCode, 401, 'the link is used')
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })).statusCode,
    401,
    'the old session ended'
  )

  const sameShop = await portalLink(app, theirs.shopId)
  const direct = await app.inject({ method: 'GET', url: sameShop, headers: { cookie } })
  t.equal(direct.statusCode, 303, "a link of the session's own shop enters without asking")
})

t.test('sign out: a change with the CSRF token that ends the session and clears the cookie', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app, 'Sign-out shop')
  const session = await enterPortal(app, shopId, { locale: 'en' })
  const page = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })
  t.match(page.body, /<form method="post" action="\/portal\/sign-out"[^>]*>\s*<button[^>]*>Sign out<\/button>/)
  const ru = await enterPortal(app, shopId)
  const russian = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: ru.cookie } })
  t.match(russian.body, />Выйти<\/button>/)

  const withoutToken = await app.inject({
    method: 'POST',
    url: '/portal/sign-out',
    headers: { cookie: session.cookie }
  })
  t.equal(withoutToken.statusCode, 403)
  t.equal(withoutToken.json().error.code, 'CSRF_INVALID')
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })).statusCode,
    200,
    'still signed in'
  )
  const out = await app.inject({ method: 'POST', url: '/portal/sign-out', headers: session.headers })
  t.equal(out.statusCode, 303)
  t.equal(out.headers.location, '/portal/signed-out')
  t.match(String(out.headers['set-cookie']), /^portal_session=; Max-Age=0; Path=\/;/, 'the cookie is cleared')
  const after = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })
  t.equal(after.statusCode, 401, 'the session has ended: the cookie no longer opens anything')
  const signedOut = await app.inject({ method: 'GET', url: '/portal/signed-out' })
  t.equal(signedOut.statusCode, 200)
  t.match(signedOut.body, /Вы вышли[\s\S]*You have signed out/)

  const readOnly = await enterPortal(app, shopId, { readOnly: true })
  const htmx = await app.inject({
    method: 'POST',
    url: '/portal/sign-out',
    headers: { ...readOnly.headers, 'hx-request': 'true' }
  })
  t.equal(htmx.statusCode, 204, 'a read-only session may sign out; htmx is told where to go')
  t.equal(htmx.headers['hx-redirect'], '/portal/signed-out')
  const activity = await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: ru.cookie } })
  t.match(activity.body, /Выход из кабинета/, 'recorded in Activity')
})

t.test('every page names the shop; the footer shows the idle and the absolute end', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app, 'Moon Keys')
  const session = await enterPortal(app, shopId, { locale: 'en' })
  for (const url of ['/portal/api-keys', '/portal/webhooks', '/portal/stock', '/portal/claims', '/portal/activity']) {
    const page = await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
    t.match(page.body, /<span class="header__shop"><span class="visually-hidden">Shop: <\/span>Moon Keys<\/span>/, url)
    const footer = /<footer class="footer">([^<]*)<\/footer>/.exec(page.body)![1]
    const inMoscow = /without activity it ends at .+ GMT\+3, at the latest at .+ GMT\+3$/
    t.match(footer, inMoscow, `${url}: in the session's zone`)
  }
})
