// Slow clients are cut (CONFIG: REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS): a socket
// that never sends its headers, and a body dribbled a byte at a time, are answered
// 408 in the envelope and closed, within generous margins of their timeouts.
import { connect } from 'node:net'
import t from 'tap'
import { loadConfig } from '../../plugins/config.js'
import { build, createShop } from '../helper.js'

const HEADERS_TIMEOUT_MS = 1000
const REQUEST_TIMEOUT_MS = 2000
/** Node checks the timeouts once a second: the cut comes at most that much later. */
const CHECK_INTERVAL_MS = 1000

interface Held { answer: string, closedAfterMs: number }

/** Opens a socket, sends `head`, then one byte of `drip` every 100 ms until the server closes it. */
function holdSocket (port: number, head: string, drip: string): Promise<Held> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    let sent = 0
    socket.on('data', (chunk) => { answer += chunk })
    socket.on('error', () => {})
    if (head) socket.write(head)
    const dripping = setInterval(() => { if (drip && sent < drip.length && socket.writable) socket.write(drip[sent++]) }, 100)
    // Bounded: a socket the server never closes ends the test, as a failure, after 20 s.
    const giveUp = setTimeout(() => socket.destroy(), 20_000)
    socket.on('close', () => {
      clearInterval(dripping)
      clearTimeout(giveUp)
      resolve({ answer, closedAfterMs: Date.now() - started })
    })
  })
}

t.test('silent and dribbling clients are cut with a 408 envelope', async (t) => {
  const app = await build(t, { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS })
  const shop = await createShop(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }

  const [silent, slowHeaders, slowBody] = await Promise.all([
    holdSocket(port, '', ''),
    holdSocket(port, '', `GET /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: ${shop.headers.authorization}\r\n\r\n`),
    holdSocket(port, `POST /v1/orders/00000000-0000-4000-8000-000000000000/cancel HTTP/1.1\r\nHost: x\r\nAuthorization: ${shop.headers.authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n', `{"reason": "${'x'.repeat(980)}"}`)
  ])
  const cases: Array<[string, Held, number]> = [
    ['a socket that sends nothing', silent, HEADERS_TIMEOUT_MS],
    ['headers sent a byte at a time', slowHeaders, HEADERS_TIMEOUT_MS],
    ['a body sent a byte at a time', slowBody, REQUEST_TIMEOUT_MS]
  ]
  for (const [name, held, timeout] of cases) {
    t.ok(held.closedAfterMs < 3 * (timeout + CHECK_INTERVAL_MS), `${name}: closed after ${held.closedAfterMs} ms (timeout ${timeout} ms)`)
    t.ok(held.closedAfterMs >= timeout - 100, `${name}: not before its timeout`)
    t.match(held.answer, /^HTTP\/1\.1 408 /, `${name}: 408`)
    t.match(held.answer, /x-request-id: [0-9a-f-]{36}/i, `${name}: request id`)
    t.match(held.answer, /"code":"VALIDATION_ERROR"/, `${name}: the envelope`)
  }
})

t.test('the timeouts are validated together', async (t) => {
  t.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '10000' }), /^Invalid configuration: HEADERS_TIMEOUT_MS="10000": expected .*at most REQUEST_TIMEOUT_MS\.$/)
  t.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' }), /REQUEST_TIMEOUT_MS/)
  const defaults = loadConfig({})
  t.same([defaults.REQUEST_TIMEOUT_MS, defaults.HEADERS_TIMEOUT_MS, defaults.KEEP_ALIVE_TIMEOUT_MS], [30_000, 10_000, 72_000])
})
