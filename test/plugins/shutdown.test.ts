// Graceful shutdown on a real listening server: a request in flight when close
// starts completes; a request arriving on its connection afterwards gets a 503
// in the envelope (not Fastify's bare answer).
import { connect } from 'node:net'
import { setTimeout as pause } from 'node:timers/promises'
import t from 'tap'
import { images, multipartBody } from '../fixtures/images.js'
import { build, createShop } from '../helper.js'

t.test('in-flight requests finish, late ones get the envelope', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }

  const upload = multipartBody([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: images.png }])
  const head = `POST /v1/media HTTP/1.1\r\nHost: test\r\nAuthorization: ${shop.headers.authorization}\r\n` +
    `Content-Type: ${upload.headers['content-type']}\r\nContent-Length: ${upload.payload.length}\r\n\r\n`
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (chunk) => { received += chunk })
  const ended = new Promise((resolve) => socket.on('close', resolve))
  socket.write(head)
  socket.write(upload.payload.subarray(0, 20))
  await pause(200)

  const closed = app.close()
  await pause(200)
  // The rest of the upload, and a second request pipelined behind it.
  socket.write(Buffer.concat([upload.payload.subarray(20), Buffer.from('GET /healthz HTTP/1.1\r\nHost: test\r\nX-Request-Id: late-one\r\n\r\n')]))
  await Promise.race([ended, pause(3000)])
  await closed
  socket.destroy()

  const [first, second] = received.split(/(?=HTTP\/1\.1 )/)
  t.match(first, /^HTTP\/1\.1 201 /, 'the upload in flight completed')
  t.match(first, /"filePath":"media\//)
  t.match(second, /^HTTP\/1\.1 503 /, 'the late request is refused')
  t.match(second, /x-request-id: late-one/i)
  const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))
  t.same(body, { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'This instance is shutting down; retry shortly.' } })
  t.match(second, /retry-after: 1\r\n/i, 'with Retry-After')
})
