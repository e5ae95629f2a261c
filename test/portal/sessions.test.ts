// Portal sessions (docs/portal.md): CSRF and read-only refusals change nothing;
// no live session is a 401 page for pages and SESSION_INVALID for the rest; idle
// and absolute expiry; the operator's revocation, seen by a second instance at
// its next request; another shop's things are 404.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { build, createShop, internalHeaders } from '../helper.js'
import { enterPortal, form } from '../fixtures/portal.js'

t.test(
  "a change without the CSRF token, or with another session's, is 403 CSRF_INVALID and changes nothing",
  async (t) => {
    const app = await build(t)
    const { shopId, headers } = await createShop(app)
    const mine = await enterPortal(app, shopId)
    const other = await enterPortal(app, shopId)
    const keysBefore = (
      await app.inject({ method: 'GET', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders })
    ).json().data.apiKeys.length
    for (const csrf of [undefined, '', 'x'.repeat(43), other.csrf]) {
      const res = await app.inject({
        method: 'POST',
        url: '/portal/api-keys',
        ...form({ name: 'sneaky' }),
        headers: { ...form({}).headers, cookie: mine.cookie, ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }) }
      })
      t.equal(res.statusCode, 403)
      t.same(res.json(), {
        success: false,
        error: { code: 'CSRF_INVALID', message: 'The X-CSRF-Token header is missing or does not match this session.' }
      })
    }
    const keysAfter = (
      await app.inject({ method: 'GET', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders })
    ).json().data.apiKeys.length
    t.equal(keysAfter, keysBefore, 'no key made')
    const language = await app.inject({
      method: 'POST',
      url: '/portal/language',
      ...form({ locale: 'en' }),
      headers: { ...form({}).headers, cookie: mine.cookie }
    })
    t.equal(language.statusCode, 403, 'the language switch needs it too')
    t.equal((await app.inject({ method: 'GET', url: '/v1/products', headers })).statusCode, 200)
  }
)

t.test('a read-only session sees the pages, without forms, and every change is 403 READ_ONLY', async (t) => {
  const app = await build(t)
  const { shopId, keyId } = await createShop(app)
  const session = await enterPortal(app, shopId, { readOnly: true, locale: 'en' })
  const page = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })
  t.equal(page.statusCode, 200)
  t.match(page.body, /read-only/)
  t.notMatch(page.body, /Create key/)
  t.notMatch(page.body, />Revoke</)
  const changes = [
    ['POST', '/portal/api-keys', { name: 'x' }],
    ['POST', `/portal/api-keys/${keyId}/revoke`, {}],
    ['POST', '/portal/webhooks', { url: 'https://example.com/hook' }],
    ['POST', '/portal/delivery-endpoint', { url: 'https://example.com/deliver' }]
  ] as const
  for (const [method, url, fields] of changes) {
    const res = await app.inject({ method, url, ...form(fields), headers: { ...form({}).headers, ...session.headers } })
    t.equal(res.statusCode, 403, url)
    t.equal(res.json().error.code, 'READ_ONLY')
  }
  const keys = (
    await app.inject({ method: 'GET', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders })
  ).json().data.apiKeys
  t.same(
    keys.map((k: { revokedAt: string | null }) => k.revokedAt),
    [null],
    'one key, not revoked'
  )
  const hooks = await app.inject({ method: 'GET', url: '/portal/webhooks', headers: { cookie: session.cookie } })
  t.match(hooks.body, /There are no endpoints yet/)
  const language = await app.inject({
    method: 'POST',
    url: '/portal/language',
    ...form({ locale: 'ru', return: '/portal/webhooks' }),
    headers: { ...form({}).headers, ...session.headers }
  })
  t.equal(language.statusCode, 303, 'its own language it may change')
  t.equal(language.headers.location, '/portal/webhooks')
  t.match(
    (await app.inject({ method: 'GET', url: '/portal/webhooks', headers: { cookie: session.cookie } })).body,
    /<html lang="ru">/
  )
})

t.test('without a live session: pages answer the "session ended" page, the rest 401 SESSION_INVALID', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  for (const cookie of [undefined, 'portal_session=nonsense', `portal_session=portal_sess_${'A'.repeat(43)}`]) {
    const headers = cookie ? { cookie } : {}
    const page = await app.inject({ method: 'GET', url: '/portal/stock', headers })
    t.equal(page.statusCode, 401)
    t.match(page.headers['content-type'], /^text\/html/)
    t.match(page.body, /Сеанс завершён/)
    t.match(page.body, /Your session has ended/)
    t.notMatch(page.body, /nav/)
    const change = await app.inject({
      method: 'POST',
      url: '/portal/api-keys',
      ...form({ name: 'x' }),
      headers: { ...form({}).headers, ...headers, 'x-csrf-token': 'x' }
    })
    t.equal(change.statusCode, 401)
    t.equal(change.json().error.code, 'SESSION_INVALID')
  }
  const session = await enterPortal(app, shopId)
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/stock', headers: { cookie: session.cookie } })).statusCode,
    200
  )
})

t.test('a session ends after an hour without a request, and 12 hours after entering', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const idle = await enterPortal(app, shopId)
  const busy = await enterPortal(app, shopId)
  await app.db.execute(sql`update portal_sessions set last_seen_at = now() - interval '61 minutes'`)
  await app.db.execute(
    sql`update portal_sessions set last_seen_at = now() - interval '59 minutes' where csrf_token = ${busy.csrf}`
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: idle.cookie } })).statusCode,
    401,
    'idle for 61 minutes'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: busy.cookie } })).statusCode,
    200,
    'idle for 59 minutes'
  )
  await app.db.execute(
    sql`update portal_sessions set expires_at = now() - interval '1 millisecond', last_seen_at = now()`
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/portal/activity', headers: { cookie: busy.cookie } })).statusCode,
    401,
    'past its 12 hours'
  )
})

t.test(
  "the operator ends a shop's sessions; a second instance on the same database refuses them at the next request",
  async (t) => {
    const first = await build(t)
    const second = await build(t)
    const shop = await createShop(first)
    const otherShop = await createShop(first, 'Other shop')
    const a = await enterPortal(first, shop.shopId)
    const b = await enterPortal(second, shop.shopId)
    const other = await enterPortal(first, otherShop.shopId)
    for (const app of [first, second]) {
      for (const session of [a, b]) {
        t.equal(
          (await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } }))
            .statusCode,
          200
        )
      }
    }
    const revoked = await first.inject({
      method: 'POST',
      url: `/internal/v1/shops/${shop.shopId}/portal-sessions/revoke`,
      headers: internalHeaders
    })
    t.equal(revoked.statusCode, 200)
    t.same(revoked.json(), { success: true, data: { revoked: 2 } })
    for (const app of [second, first]) {
      for (const session of [a, b]) {
        t.equal(
          (await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } }))
            .statusCode,
          401
        )
        const change = await app.inject({
          method: 'POST',
          url: '/portal/api-keys',
          ...form({ name: 'x' }),
          headers: { ...form({}).headers, ...session.headers }
        })
        t.equal(change.json().error.code, 'SESSION_INVALID')
      }
    }
    t.equal(
      (await second.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: other.cookie } })).statusCode,
      200,
      "another shop's session goes on"
    )
    const again = await first.inject({
      method: 'POST',
      url: `/internal/v1/shops/${shop.shopId}/portal-sessions/revoke`,
      headers: internalHeaders
    })
    t.same(again.json().data, { revoked: 0 })
    const unknown = await first.inject({
      method: 'POST',
      url: '/internal/v1/shops/0b7c5a7e-3f41-4f3e-9a51-2f0f0c1d2e3f/portal-sessions/revoke',
      headers: internalHeaders
    })
    t.equal(unknown.statusCode, 404)
  }
)

t.test("another shop's key, endpoint, product or delivery is not found, and nothing changes", async (t) => {
  const app = await build(t, { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true })
  const mine = await createShop(app)
  const theirs = await createShop(app, 'Their shop')
  const session = await enterPortal(app, mine.shopId)
  const hook = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: theirs.headers,
    payload: { url: 'http://127.0.0.1:9/hook' }
  })
  const endpointId = hook.json().data.endpoint.id
  const test = await app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${endpointId}/test`,
    headers: theirs.headers
  })
  const deliveryId = test.json().data.delivery.id
  const pages = [
    `/portal/api-keys/${theirs.keyId}/revoke`,
    `/portal/webhooks/${endpointId}`,
    `/portal/webhooks/${endpointId}/edit`,
    '/portal/webhooks/not-an-id',
    `/portal/stock/${endpointId}`,
    '/portal/no-such-page'
  ]
  for (const url of pages) {
    const res = await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
    t.equal(res.statusCode, 404, url)
    t.match(res.body, /Страница не найдена/)
  }
  const changes = [
    `/portal/api-keys/${theirs.keyId}/revoke`,
    `/portal/webhooks/${endpointId}/delete`,
    `/portal/webhooks/${endpointId}/rotate`,
    `/portal/webhooks/${endpointId}/test`,
    `/portal/webhooks/${endpointId}/deliveries/${deliveryId}/retry`,
    '/portal/api-keys/not-an-id/revoke'
  ]
  for (const url of changes) {
    const res = await app.inject({
      method: 'POST',
      url,
      ...form({}),
      headers: { ...form({}).headers, ...session.headers }
    })
    t.equal(res.statusCode, 404, url)
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/v1/products', headers: theirs.headers })).statusCode,
    200,
    'their key still works'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpointId}`, headers: theirs.headers }))
      .statusCode,
    200,
    'their endpoint is still there'
  )
})
