// The drain before a shutdown, on a real process receiving signals
// (docs/deploying-rolling.md): on SIGTERM /readyz fails at once, requests are
// still served but told to close their connection, held long polls are answered
// at once, then the instance closes and exits 0. A second signal exits at once;
// SHUTDOWN_DRAIN_MS=0 closes without a drain.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import t from 'tap'
import { fileServerEnv, startServerProcess } from '../fixtures/server-process.js'
import { build, createShop, type ShopFixture } from '../helper.js'

interface Answer { statusCode: number, headers: IncomingHttpHeaders, body: string }

function get (port: number, path: string, options: { agent?: Agent, headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: options.agent, headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk) => { body += chunk }).on('end', () => resolve({ statusCode: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject).end()
  })
}

let shop: ShopFixture
t.before(async () => {
  const setup = await build(t)
  shop = await createShop(setup)
  await setup.close()
})

const serverEnv = (drainMs: number) => fileServerEnv({ SHUTDOWN_DRAIN_MS: String(drainMs) })

t.test('SIGTERM: not ready at once, still serving with Connection: close, held polls answered, then exit 0', async (t) => {
  // Long enough that every step below happens inside the drain on a busy machine.
  const server = await startServerProcess(t, await serverEnv(20_000))
  const { port } = server
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())

  const before = await get(port, '/readyz', { agent })
  t.equal(before.statusCode, 200, 'ready before the signal')
  t.equal(before.headers.connection, 'keep-alive')
  const held = get(port, '/v1/events?after=latest&wait=30', { headers: shop.headers })
  // The poll is held once it has read the feed; give it a moment to get there.
  await new Promise((resolve) => setTimeout(resolve, 500))

  server.child.kill('SIGTERM')
  await server.printed(/"msg":"draining/)
  const poll = await held
  t.equal(poll.statusCode, 200, 'the held long poll is answered, not dropped')
  t.same(JSON.parse(poll.body).data.events, [], 'with what it had')
  t.equal(poll.headers.connection, 'close')

  const ready = await get(port, '/readyz', { agent })
  t.equal(ready.statusCode, 503, '/readyz fails while draining')
  t.equal(ready.headers['retry-after'], '5')
  t.equal(ready.headers.connection, 'close', 'keep-alive clients are told to move')
  t.match(JSON.parse(ready.body), { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: shutting down.', details: [{ path: 'shutdown' }] } })

  const served = await get(port, '/v1/orders', { agent, headers: shop.headers })
  t.equal(served.statusCode, 200, 'requests are still served while draining')
  t.equal(served.headers.connection, 'close')
  const polled = await get(port, '/v1/events?after=latest&wait=30', { headers: shop.headers })
  t.equal(polled.statusCode, 200, 'a new long poll is answered at once')
  t.equal(polled.headers.connection, 'close')

  t.equal(server.child.exitCode, null, 'all of it inside the drain: the process still runs')
  t.equal(await server.exited, 0, 'then it closes and exits 0')
  await t.rejects(get(port, '/healthz'), { code: 'ECONNREFUSED' }, 'and no longer listens')
})

t.test('a second signal exits at once', async (t) => {
  const server = await startServerProcess(t, await serverEnv(300_000))
  t.equal((await get(server.port, '/healthz')).statusCode, 200)
  server.child.kill('SIGTERM')
  await server.printed(/"msg":"draining/)
  t.equal((await get(server.port, '/readyz')).statusCode, 503, 'draining (for five minutes)')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 1, 'the second signal ends it without waiting for the drain')
  t.match(server.output(), /second signal: exiting at once/)
})

t.test('SHUTDOWN_DRAIN_MS=0: no drain, the close answers held polls and exits 0', async (t) => {
  const server = await startServerProcess(t, await serverEnv(0))
  const held = get(server.port, '/v1/events?after=latest&wait=30', { headers: shop.headers })
  await new Promise((resolve) => setTimeout(resolve, 500))
  server.child.kill('SIGTERM')
  const poll = await held
  t.equal(poll.statusCode, 200)
  t.equal(poll.headers.connection, 'close')
  t.equal(await server.exited, 0)
  t.notMatch(server.output(), /draining/, 'no drain')
})
