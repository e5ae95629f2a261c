// /v1/webhook-endpoints through HTTP: creation with a once-shown secret, the
// URL rules, the kinds filter, the 10-endpoint limit, changes, deletion,
// rotation, the deliveries list's paging and validation, and cross-shop 404s.
// (Deliveries themselves: test/webhooks/.)
import t from 'tap'
import { build, createShop, type App, type ShopFixture } from '../helper.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { createEndpoint, deliveries } from '../fixtures/webhooks.js'

const HOOK = 'https://hooks.example.invalid/shop'
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

function call (app: App, shop: ShopFixture, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  return app.inject({ method, url: `/v1/webhook-endpoints${url}`, headers: shop.headers, ...(payload ? { payload } : {}) })
}

t.test('create returns the endpoint and its secret once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const res = await call(app, shop, 'POST', '', { url: HOOK })
  t.equal(res.statusCode, 201)
  const { endpoint, secret } = res.json().data
  t.match(secret, SECRET)
  t.equal(Buffer.from(secret.slice(6), 'base64').length, 32, '32 random bytes')
  t.same(Object.keys(endpoint).sort(), ['createdAt', 'description', 'disabledReason', 'enabled', 'eventTypes', 'id', 'updatedAt', 'url'])
  t.match(endpoint, { url: HOOK, eventTypes: [], description: '', enabled: true, disabledReason: null })
  t.match(endpoint.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

  const second = (await call(app, shop, 'POST', '', { url: HOOK })).json().data
  t.not(second.secret, secret, 'every endpoint has its own secret')

  // The secret appears in no other response.
  const reads = [
    await call(app, shop, 'GET', ''),
    await call(app, shop, 'GET', `/${endpoint.id}`),
    await call(app, shop, 'PATCH', `/${endpoint.id}`, { description: 'orders bot' }),
    await call(app, shop, 'GET', `/${endpoint.id}/deliveries`),
    await call(app, shop, 'DELETE', `/${endpoint.id}`)
  ]
  for (const read of reads) {
    t.equal(read.statusCode, 200)
    t.notMatch(read.body, /whsec_/, 'no secret in a read')
  }
})

t.test('eventTypes: [] means all; unknown kinds and long descriptions are refused', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const picked = await createEndpoint(app, shop, { url: HOOK, eventTypes: ['message.created', 'order.paid', 'order.paid'], description: 'two kinds' })
  t.same(picked.endpoint.eventTypes, ['order.paid', 'message.created'], 'each kind once, in the list\'s order')
  t.equal(picked.endpoint.description, 'two kinds')

  const unknown = await call(app, shop, 'POST', '', { url: HOOK, eventTypes: ['order.paid', 'order.refunded'] })
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.json().error.code, 'VALIDATION_ERROR')
  t.equal(unknown.json().error.details[0].path, 'body.eventTypes.1')
  const test = await call(app, shop, 'POST', '', { url: HOOK, eventTypes: ['webhook.test'] })
  t.equal(test.statusCode, 400, 'webhook.test is not a kind to subscribe to')
  const long = await call(app, shop, 'POST', '', { url: HOOK, description: 'x'.repeat(501) })
  t.equal(long.statusCode, 400)
  t.equal((await call(app, shop, 'POST', '', { url: HOOK, description: 'x'.repeat(500) })).statusCode, 201)
  t.equal((await call(app, shop, 'POST', '', { eventTypes: [] })).statusCode, 400, 'url is required')
  t.equal((await call(app, shop, 'POST', '', { url: 42 })).statusCode, 400)
  t.equal((await call(app, shop, 'GET', '')).json().data.endpoints.length, 2, 'refused ones were not created')
})

t.test('URL rules at creation', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const refused = [
    'hooks.example.com/x', '/relative', 'ftp://hooks.example.com/', 'http://hooks.example.com/',
    'https://user:pass@hooks.example.com/', `https://hooks.example.com/${'a'.repeat(2030)}`,
    'https://127.0.0.1/', 'https://127.8.9.10:8443/x', 'https://2130706433/', 'https://0x7f.1/',
    'https://10.0.0.1/', 'https://172.16.5.4/', 'https://192.168.1.1/', 'https://169.254.169.254/latest',
    'https://0.0.0.0/', 'https://224.0.0.1/', 'https://100.64.0.1/',
    'https://[::1]/', 'https://[::]/', 'https://[fe80::1]/', 'https://[fd12:3456::1]/', 'https://[ff02::1]/',
    'https://[::ffff:127.0.0.1]/', 'https://[::ffff:10.0.0.1]/',
    // IPv6 forms carrying an IPv4 address are judged as that address.
    'https://[::7f00:1]/', 'https://[::a9fe:a9fe]/latest', 'https://[64:ff9b::7f00:1]/', 'https://[2002:7f00:1::]/',
    'http://[::7f00:1]/', 'https://[2002:a9fe:a9fe::]/',
    // Outside the global unicast block 2000::/3, or special-purpose inside it.
    'https://[64:ff9b:1::a00:1]/', 'https://[4000::1]/', 'https://[2001:db8::1]/', 'https://[2001::1]/'
  ]
  for (const url of refused) {
    const res = await call(app, shop, 'POST', '', { url })
    t.equal(res.statusCode, 400, `${url} refused`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
    t.equal(res.json().error.details[0].path, 'body.url')
  }
  const loopback = await call(app, shop, 'POST', '', { url: 'https://127.0.0.1/' })
  t.match(loopback.json().error.message, /public address \(127\.0\.0\.1 is a loopback address\)/)
  const compatible = await call(app, shop, 'POST', '', { url: 'https://[::a9fe:a9fe]/' })
  t.match(compatible.json().error.message, /169\.254\.169\.254 is a link-local address \(inside ::a9fe:a9fe\)/)

  const accepted = ['https://hooks.example.invalid/x?shop=1', 'https://93.184.215.14/hook', 'https://[2606:4700::1111]/h', 'https://localhost:8443/']
  for (const url of accepted) t.equal((await call(app, shop, 'POST', '', { url })).statusCode, 201, `${url} accepted (names are judged at delivery)`)
  const normalised = await createEndpoint(app, shop, { url: 'HTTPS://Hooks.Example.INVALID:443/a/../b' })
  t.equal(normalised.endpoint.url, 'https://hooks.example.invalid/b', 'stored in normalised form')
  t.equal((await call(app, shop, 'GET', '')).json().data.endpoints.length, 5, 'nothing refused was created')

  const open = await build(t, { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true })
  const dev = await createShop(open)
  for (const url of ['http://127.0.0.1:9000/hook', 'https://[::1]/', 'http://10.0.0.1/']) {
    t.equal((await call(open, dev, 'POST', '', { url })).statusCode, 201, `${url} accepted with the development overrides`)
  }
  t.equal((await call(open, dev, 'POST', '', { url: 'ftp://127.0.0.1/' })).statusCode, 400, 'still http(s) only')
})

t.test('at most 10 endpoints a shop, deleted ones not counted, also when created at once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other shop')
  const results = await Promise.all(Array.from({ length: 13 }, () => call(app, shop, 'POST', '', { url: HOOK })))
  t.equal(results.filter((r) => r.statusCode === 201).length, 10, 'ten created')
  const refusedOnes = results.filter((r) => r.statusCode !== 201)
  t.equal(refusedOnes.length, 3)
  for (const r of refusedOnes) {
    t.equal(r.statusCode, 400)
    t.match(r.json().error, { code: 'VALIDATION_ERROR', message: /at most 10 webhook endpoints/ })
  }
  t.equal((await call(app, other, 'POST', '', { url: HOOK })).statusCode, 201, 'another shop has its own ten')
  const first = results.find((r) => r.statusCode === 201)!.json().data.endpoint
  t.equal((await call(app, shop, 'DELETE', `/${first.id}`)).statusCode, 200)
  t.equal((await call(app, shop, 'POST', '', { url: HOOK })).statusCode, 201, 'a deleted endpoint frees its place')
  t.equal((await call(app, shop, 'POST', '', { url: HOOK })).statusCode, 400)
})

t.test('list, get, patch, delete, rotate', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const a = await createEndpoint(app, shop, { url: HOOK, description: 'a' })
  const b = await createEndpoint(app, shop, { url: `${HOOK}/b`, eventTypes: ['order.paid'] })
  t.same((await call(app, shop, 'GET', '')).json().data.endpoints.map((e: { id: string }) => e.id), [a.endpoint.id, b.endpoint.id], 'oldest first')
  t.same((await call(app, shop, 'GET', `/${a.endpoint.id}`)).json().data.endpoint, a.endpoint)

  const patched = await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { url: 'https://other.example.invalid/h', eventTypes: ['order.taken'], description: '' })
  t.equal(patched.statusCode, 200)
  t.match(patched.json().data.endpoint, { url: 'https://other.example.invalid/h', eventTypes: ['order.taken'], description: '', enabled: true })
  t.ok(patched.json().data.endpoint.updatedAt >= a.endpoint.updatedAt)

  const badUrl = await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { url: 'https://10.1.1.1/', description: 'not saved' })
  t.equal(badUrl.statusCode, 400)
  t.equal(badUrl.json().error.details[0].path, 'body.url')
  t.equal((await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { eventTypes: ['nope'] })).statusCode, 400)
  t.equal((await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { enabled: 'false' })).statusCode, 400, 'booleans are strict in bodies')
  t.same((await call(app, shop, 'GET', `/${a.endpoint.id}`)).json().data.endpoint, patched.json().data.endpoint, 'refused changes changed nothing')
  t.same((await call(app, shop, 'PATCH', `/${a.endpoint.id}`, {})).json().data.endpoint, patched.json().data.endpoint, 'an empty patch changes nothing')

  const disabled = (await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { enabled: false })).json().data.endpoint
  t.match(disabled, { enabled: false, disabledReason: 'Disabled through the API.' })
  const enabled = (await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { enabled: true })).json().data.endpoint
  t.match(enabled, { enabled: true, disabledReason: null })
  t.same((await call(app, shop, 'PATCH', `/${a.endpoint.id}`, { eventTypes: [] })).json().data.endpoint.eventTypes, [], '[] subscribes to all again')

  const rotated = await call(app, shop, 'POST', `/${b.endpoint.id}/rotate-secret`)
  t.equal(rotated.statusCode, 200)
  t.match(rotated.json().data.secret, SECRET)
  t.not(rotated.json().data.secret, b.secret)
  t.equal(rotated.json().data.endpoint.id, b.endpoint.id)

  const deleted = await call(app, shop, 'DELETE', `/${b.endpoint.id}`)
  t.equal(deleted.statusCode, 200)
  t.equal(deleted.json().data.endpoint.id, b.endpoint.id)
  for (const [method, url] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/rotate-secret'], ['POST', '/test'], ['GET', '/deliveries']] as const) {
    const res = await call(app, shop, method, `/${b.endpoint.id}${url}`, method === 'PATCH' ? { description: 'x' } : undefined)
    t.equal(res.statusCode, 404, `${method} ${url || '/'} of a deleted endpoint`)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  t.same((await call(app, shop, 'GET', '')).json().data.endpoints.map((e: { id: string }) => e.id), [a.endpoint.id])
})

t.test('another shop\'s endpoints and deliveries are not found; malformed ids too', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const stranger = await createShop(app, 'Stranger')
  const { endpoint } = await createEndpoint(app, shop, { url: HOOK })
  const test = await call(app, shop, 'POST', `/${endpoint.id}/test`)
  t.equal(test.statusCode, 202)
  const delivery = test.json().data.delivery

  const attempts: Array<[ 'GET' | 'POST' | 'PATCH' | 'DELETE', string]> = [
    ['GET', `/${endpoint.id}`], ['PATCH', `/${endpoint.id}`], ['DELETE', `/${endpoint.id}`],
    ['POST', `/${endpoint.id}/rotate-secret`], ['POST', `/${endpoint.id}/test`], ['GET', `/${endpoint.id}/deliveries`],
    ['POST', `/${endpoint.id}/deliveries/${delivery.id}/retry`]
  ]
  for (const [method, url] of attempts) {
    const res = await call(app, stranger, method, url, method === 'PATCH' ? { enabled: false } : undefined)
    t.equal(res.statusCode, 404, `${method} ${url} from another shop`)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  t.same((await call(app, stranger, 'GET', '')).json().data.endpoints, [])
  t.same((await call(app, shop, 'GET', `/${endpoint.id}`)).json().data.endpoint, endpoint, 'untouched')

  const other = await createEndpoint(app, shop, { url: HOOK })
  const wrongEndpoint = await call(app, shop, 'POST', `/${other.endpoint.id}/deliveries/${delivery.id}/retry`)
  t.equal(wrongEndpoint.statusCode, 404, 'a delivery of another endpoint')
  t.equal(wrongEndpoint.json().error.code, 'NOT_FOUND')
  for (const url of ['/not-a-uuid', `/${endpoint.id}/deliveries/nope/retry`, '/12345678-1234-1234-1234-1234567890ab', `/${endpoint.id}/deliveries/12345678-1234-1234-1234-1234567890ab/retry`]) {
    const res = await call(app, shop, url.endsWith('retry') ? 'POST' : 'GET', url)
    t.equal(res.statusCode, 404, url)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  const anonymous = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints' })
  t.equal(anonymous.statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/v1/webhook-endpoints/not-a-uuid' })).statusCode, 401, 'authentication comes first')
})

t.test('the deliveries list: newest first, paged by cursor, filtered by status', async (t) => {
  // No receiver: nothing can be delivered to a .invalid host. A commit wakes the
  // worker, so a delivery may already have had its first (failed) attempt: it stays
  // pending, due again later.
  const app = await build(t, { WEBHOOK_POLL_INTERVAL_MS: 60_000 })
  const shop = await createShop(app)
  const { endpoint } = await createEndpoint(app, shop, { url: HOOK })
  const product = await createProduct(app, shop)
  const orders = []
  for (let i = 0; i < 5; i++) orders.push(await buy(app, product))

  const first = await deliveries(app, shop, endpoint.id, '?limit=2')
  t.equal(first.deliveries.length, 2)
  t.type(first.nextCursor, 'string')
  const second = await deliveries(app, shop, endpoint.id, `?limit=2&after=${first.nextCursor}`)
  const third = await deliveries(app, shop, endpoint.id, `?limit=2&after=${second.nextCursor}`)
  t.equal(third.deliveries.length, 1)
  t.equal(third.nextCursor, null, 'the last page')
  const all = [...first.deliveries, ...second.deliveries, ...third.deliveries]
  t.same(all.map((d) => d.eventType), Array(5).fill('order.paid'))
  t.equal(new Set(all.map((d) => d.eventId)).size, 5)
  const created = all.map((d) => d.createdAt)
  t.same(created, [...created].sort().reverse(), 'newest first')
  t.match(all[0], { endpointId: endpoint.id, status: 'pending', lastStatusCode: null })
  t.ok(all.every((d) => d.attempts <= 1 && (d.attempts === 0) === (d.lastAttemptAt === null)), 'at most the first attempt, recorded with its time')
  t.same(Object.keys(all[0]).sort(), ['attempts', 'createdAt', 'endpointId', 'eventId', 'eventType', 'id', 'lastAttemptAt', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'status'])

  t.equal((await deliveries(app, shop, endpoint.id)).deliveries.length, 5, 'default limit 20')
  t.equal((await deliveries(app, shop, endpoint.id, '?status=pending')).deliveries.length, 5)
  t.same((await deliveries(app, shop, endpoint.id, '?status=failed')).deliveries, [])

  for (const query of ['?limit=0', '?limit=101', '?status=done', '?after=garbage', '?after=', `?after=${Buffer.from('2026-01-01T00:00:00.000Z x').toString('base64url')}`]) {
    const res = await call(app, shop, 'GET', `/${endpoint.id}/deliveries${query}`)
    t.equal(res.statusCode, 400, `${query} refused`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
})

t.test('the OpenAPI document describes the webhook routes', async (t) => {
  const app = await build(t)
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  const operations: Array<[string, string, string]> = [
    ['post', '/v1/webhook-endpoints', '201'], ['get', '/v1/webhook-endpoints', '200'], ['get', '/v1/webhook-endpoints/{id}', '200'],
    ['patch', '/v1/webhook-endpoints/{id}', '200'], ['delete', '/v1/webhook-endpoints/{id}', '200'],
    ['post', '/v1/webhook-endpoints/{id}/rotate-secret', '200'], ['post', '/v1/webhook-endpoints/{id}/test', '202'],
    ['get', '/v1/webhook-endpoints/{id}/deliveries', '200'], ['post', '/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', '202']
  ]
  for (const [method, path, success] of operations) {
    const op = doc.paths[path]?.[method]
    t.ok(op?.summary, `${method.toUpperCase()} ${path} documented`)
    t.same(op?.tags, ['webhooks'])
    t.ok(op?.responses?.[success], `${path} documents ${success}`)
    t.ok(op?.responses?.['404'] && op?.responses?.['401'])
  }
  t.ok(doc.tags.some((tag: { name: string }) => tag.name === 'webhooks'))
})
