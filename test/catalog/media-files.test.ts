import { createHash } from 'node:crypto'
import t from 'tap'
import { build, buildBehindDatabaseRelay, createShop } from '../helper.js'
import { images, upload } from '../fixtures/images.js'

t.test('serves an uploaded image publicly with type, nosniff, strong ETag and long caching', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const { filePath } = (await upload(app, shop, images.gif, 'image/png')).json().data

  const res = await app.inject({ method: 'GET', url: `/${filePath}` })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/gif', 'the sniffed type, not the one the client claimed')
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.equal(res.headers.etag, `"${createHash('sha256').update(images.gif).digest('hex')}"`, 'strong ETag: SHA-256 of the bytes')
  t.match(res.headers['cache-control'], /max-age=31536000/)
  t.match(res.headers['cache-control'], /immutable/)
  t.same(res.rawPayload, images.gif)
  t.equal(res.headers['ratelimit-limit'], '600', 'public files are limited per client IP, not per key')

  const head = await app.inject({ method: 'HEAD', url: `/${filePath}` })
  t.equal(head.statusCode, 200)
  t.equal(head.headers['content-type'], 'image/gif')
})

t.test('If-None-Match with the ETag is 304 without a body', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const { filePath } = (await upload(app, shop, images.png)).json().data
  const first = await app.inject({ method: 'GET', url: `/${filePath}` })
  const etag = first.headers.etag as string

  for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
    const res = await app.inject({ method: 'GET', url: `/${filePath}`, headers: { 'if-none-match': ifNoneMatch } })
    t.equal(res.statusCode, 304, ifNoneMatch)
    t.equal(res.body, '')
    t.equal(res.headers.etag, etag)
    t.match(res.headers['cache-control'], /immutable/)
  }
  // On the wire too: no body, and no Content-Type or Content-Length announcing one.
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const wire = await fetch(`http://127.0.0.1:${port}/${filePath}`, { headers: { 'if-none-match': etag } })
  t.equal(wire.status, 304)
  t.equal(wire.headers.get('content-type'), null, 'no Content-Type')
  t.notOk(Number(wire.headers.get('content-length')), 'no Content-Length beyond 0')
  t.equal(await wire.text(), '')

  const changed = await app.inject({ method: 'GET', url: `/${filePath}`, headers: { 'if-none-match': '"something-else"' } })
  t.equal(changed.statusCode, 200)
  t.same(changed.rawPayload, images.png)
})

t.test('unknown or malformed file names are a 404 envelope', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const { id } = (await upload(app, shop, images.png)).json().data
  const urls = [
    '/media/00000000-0000-4000-8000-000000000000.png',
    `/media/${id}.gif`,
    `/media/${id}`,
    `/media/${id}.png.png`,
    '/media/not-an-id.png',
    '/media/urn:uuid:00000000-0000-4000-8000-000000000000.png',
    `/media/${'a'.repeat(90)}.png`,
    `/media/${'a'.repeat(300)}.png`,
    `/media/${'a'.repeat(3000)}.png`,
    '/media/..%2F..%2Fetc%2Fpasswd'
  ]
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 404, url)
    t.equal(res.json().success, false, url)
    t.equal(res.json().error.code, 'NOT_FOUND', url.slice(0, 60))
  }
})

t.test('a file served again costs no database query; beyond the per-IP limit, 429 with RateLimit headers', async (t) => {
  const { app, relay } = await buildBehindDatabaseRelay(t, { PUBLIC_RATE_LIMIT_MAX: 20 })
  const shop = await createShop(app)
  const { filePath } = (await upload(app, shop, images.png)).json().data
  const get = (remoteAddress = '203.0.113.7') => app.inject({ method: 'GET', url: `/${filePath}`, remoteAddress })
  const lookups = relay.countFromApp((chunk) => chunk.includes(filePath.slice('media/'.length, -'.png'.length)))
  const first = await get()
  t.equal(first.statusCode, 200)
  t.equal(lookups.count, 1, 'the first request reads the file from the database (the counter sees queries)')
  t.equal(first.headers['ratelimit-limit'], '20', 'limited per client IP')
  t.equal(first.headers['ratelimit-remaining'], '19')
  t.match(first.headers['ratelimit-policy'], /^"default";q=20;w=\d+$/)
  for (let i = 0; i < 19; i++) {
    const res = await get()
    t.equal(res.statusCode, 200)
    t.same(res.rawPayload, images.png)
  }
  t.equal(lookups.count, 1, '19 more answers, no query for the file sent to the database')
  const refused = await get()
  t.equal(refused.statusCode, 429, 'the 21st request of the window from that IP')
  t.equal(refused.json().error.code, 'RATE_LIMIT')
  t.ok(refused.headers['retry-after'])
  t.equal(refused.headers['ratelimit-remaining'], '0')
  const unknown = `/media/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}.png`
  t.equal((await app.inject({ method: 'GET', url: unknown, remoteAddress: '203.0.113.7' })).statusCode, 429, 'unknown files count too: no lookup')
  t.equal((await get('203.0.113.8')).statusCode, 200, 'another IP has its own window')
})
