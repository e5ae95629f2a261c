import postgres from 'postgres'
import t from 'tap'
import { build, createShop, fileDatabaseUrl } from '../helper.js'
import { images, multipartBody, upload } from '../fixtures/images.js'

async function storedImages (): Promise<number> {
  const sql = postgres(await fileDatabaseUrl(), { max: 1, onnotice: () => {} })
  try {
    const [{ n }] = await sql`select count(*)::int as n from media`
    return n
  } finally {
    await sql.end()
  }
}

const mimes = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' } as const

t.test('accepts PNG, JPEG, WebP and GIF, typed by their bytes', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  for (const [ext, data] of Object.entries(images) as Array<[keyof typeof images, Buffer]>) {
    // The client's Content-Type is ignored: every part claims octet-stream.
    const res = await upload(app, shop, data, 'application/octet-stream', 'upload.bin')
    t.equal(res.statusCode, 201, `${ext}: ${res.body}`)
    const { id, filePath } = res.json().data
    t.match(id, /^[0-9a-f-]{36}$/)
    t.equal(filePath, `media/${id}.${ext}`)
    const file = await app.inject({ method: 'GET', url: `/${filePath}` })
    t.equal(file.statusCode, 200)
    t.equal(file.headers['content-type'], mimes[ext])
    t.same(file.rawPayload, data, `${ext} bytes come back unchanged`)
  }
})

t.test('refuses what is not a JPEG, PNG, WebP or GIF, whatever the client claims', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const cases = {
    svg: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>',
    html: '<!doctype html><html><body><script>alert(1)</script></body></html>',
    pdf: '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
    text: 'just some text',
    empty: '',
    truncatedPng: images.png.subarray(0, 4)
  }
  for (const [name, data] of Object.entries(cases)) {
    const res = await upload(app, shop, data, 'image/png', 'image.png')
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', name)
  }
})

t.test('a file over 10 MB is 413 VALIDATION_ERROR', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const big = Buffer.alloc(10 * 1024 * 1024 + 1)
  images.png.copy(big)
  const res = await upload(app, shop, big)
  t.equal(res.statusCode, 413, res.body)
  t.equal(res.json().error.code, 'VALIDATION_ERROR')

  const exactly = Buffer.alloc(10 * 1024 * 1024)
  images.png.copy(exactly)
  const ok = await upload(app, shop, exactly)
  t.equal(ok.statusCode, 201, 'exactly 10 MB is accepted')
})

t.test('over 10 MB is refused every time, whatever the chunking on the wire, and nothing is stored', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const before = await storedImages()
  const big = Buffer.alloc(11 * 1024 * 1024)
  images.png.copy(big)
  const body = multipartBody([{ name: 'file', filename: 'big.png', contentType: 'image/png', data: big }])
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/media`, { method: 'POST', headers: { ...shop.headers, ...body.headers }, body: new Uint8Array(body.payload) })
    t.equal(res.status, 413, `attempt ${i + 1}`)
    t.equal((await res.json()).error.code, 'VALIDATION_ERROR')
  }
  t.equal(await storedImages(), before, 'no oversized image was stored')
})

t.test('one part only: a second file (or any other part) is 400 and nothing is stored', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const before = await storedImages()
  const cases = {
    'two files': [{ name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }, { name: 'file', filename: 'b.gif', contentType: 'image/gif', data: images.gif }],
    'a file and another file': [{ name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }, { name: 'other', filename: 'b.png', contentType: 'image/png', data: images.png }],
    'a field, then the file': [{ name: 'note', data: 'hello' }, { name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }]
  }
  for (const [name, parts] of Object.entries(cases)) {
    const body = multipartBody(parts)
    const res = await app.inject({ method: 'POST', url: '/v1/media', headers: { ...shop.headers, ...body.headers }, payload: body.payload })
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', name)
  }
  t.equal(await storedImages(), before, 'nothing was stored')
})

t.test('the image must be a file in the part named `file`', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const send = (payload: Buffer, headers: Record<string, string>) =>
    app.inject({ method: 'POST', url: '/v1/media', headers: { ...shop.headers, ...headers }, payload })

  const wrongName = multipartBody([{ name: 'image', filename: 'a.png', contentType: 'image/png', data: images.png }])
  let res = await send(wrongName.payload, wrongName.headers)
  t.equal(res.statusCode, 400, res.body)
  t.equal(res.json().error.code, 'VALIDATION_ERROR')

  const fieldOnly = multipartBody([{ name: 'file', data: 'not a file' }])
  res = await send(fieldOnly.payload, fieldOnly.headers)
  t.equal(res.statusCode, 400, res.body)
  t.equal(res.json().error.code, 'VALIDATION_ERROR')

  res = await app.inject({ method: 'POST', url: '/v1/media', headers: shop.headers, payload: { file: 'x' } })
  t.equal(res.statusCode, 400, 'a JSON body is not an upload')
  t.equal(res.json().error.code, 'VALIDATION_ERROR')
})

t.test('uploading needs a key', async (t) => {
  const app = await build(t)
  const body = multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }])
  const res = await app.inject({ method: 'POST', url: '/v1/media', headers: body.headers, payload: body.payload })
  t.equal(res.statusCode, 401)
  t.equal(res.json().error.code, 'API_KEY_INVALID')
})

t.test('malformed multipart bodies are a 400, never a 500', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const body = multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }])
  const cases: Array<[string, Record<string, string>, Buffer | string]> = [
    ['no boundary', { 'content-type': 'multipart/form-data' }, body.payload],
    ['truncated', body.headers, body.payload.subarray(0, body.payload.length - 30)],
    ['garbage', body.headers, 'this is not multipart at all']
  ]
  for (const [name, headers, payload] of cases) {
    const res = await app.inject({ method: 'POST', url: '/v1/media', headers: { ...shop.headers, ...headers }, payload })
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }
})
