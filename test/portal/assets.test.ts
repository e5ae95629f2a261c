// The portal's static files (docs/portal.md, "Assets"): the pages name them by
// their content's hash, they are served compressed (brotli or gzip, as accepted)
// with `Cache-Control: public, max-age=31536000, immutable`; other names are 404.
import t from 'tap'
import { createHash } from 'node:crypto'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { build, createShop } from '../helper.js'
import { enterPortal } from '../fixtures/portal.js'

const ASSET = /\/portal\/assets\/((?:htmx\.min|portal)\.([0-9a-f]{16})\.(?:js|css))/g

t.test('assets: hashed names, compressed, cached for a year as immutable', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app)
  const session = await enterPortal(app, shopId)
  const page = await app.inject({ method: 'GET', url: '/portal/api-keys', headers: { cookie: session.cookie } })
  const named = [...page.body.matchAll(ASSET)]
  t.same(named.map((m) => m[1].split('.')[0]).sort(), ['htmx', 'portal', 'portal'], 'the page names all three')
  t.notMatch(page.body, /\/portal\/assets\/(htmx\.min|portal)\.(js|css)"/, 'no unhashed name')
  t.notOk(page.headers['content-encoding'], 'pages are not compressed (they carry the CSRF token)')
  const bare = await app.inject({ method: 'GET', url: '/portal/enter' })
  t.match(bare.body, ASSET, 'the pages without a session too')

  for (const [url, , hash] of named.map((m) => [m[0], m[1], m[2]])) {
    const plain = await app.inject({ method: 'GET', url })
    t.equal(plain.statusCode, 200, url)
    t.equal(plain.headers['content-encoding'], undefined, 'not compressed when the browser does not ask')
    t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
    const identity = plain.rawPayload
    t.equal(createHash('sha256').update(identity).digest('hex').slice(0, 16), hash, 'the name is the content\'s hash')

    const br = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip' } })
    t.equal(br.headers['content-encoding'], 'br')
    t.match(String(br.headers.vary), /accept-encoding/i)
    t.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.ok(brotliDecompressSync(br.rawPayload).equals(identity), 'brotli: the same file')
    t.ok(br.rawPayload.length < identity.length / 2, `brotli: ${br.rawPayload.length} of ${identity.length} bytes`)

    const gzip = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } })
    t.equal(gzip.headers['content-encoding'], 'gzip')
    t.ok(gunzipSync(gzip.rawPayload).equals(identity), 'gzip: the same file')
  }
  const htmx = named.find((m) => m[1].startsWith('htmx'))![0]
  const gzipped = await app.inject({ method: 'GET', url: htmx, headers: { 'accept-encoding': 'gzip' } })
  t.ok(gzipped.rawPayload.length < 20_000, `htmx gzipped: ${gzipped.rawPayload.length} bytes`)

  for (const url of [
    '/portal/assets/htmx.min.js',
    '/portal/assets/portal.css',
    '/portal/assets/portal.0000000000000000.css',
    '/portal/assets/htmx.js'
  ]) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, url)
  }
})
