// No secret, request body or query parameter in any log line (docs/security.md,
// What is logged): the database cut while a query carrying a webhook secret runs,
// a key sent by mistake in a query string, and the one error serializer.
import { Writable } from 'node:stream'
import t from 'tap'
import { buildApp, serverOptions } from '../../app.js'
import { tcpRelay, viaRelay } from '../fixtures/tcp-relay.js'
import { waitUntil } from '../fixtures/until.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import { createShop, fileDatabaseUrl, INTERNAL_TOKEN, testConfig } from '../helper.js'
import { loggedUrl, serializeError } from '../../lib/logging.js'
import type { Config } from '../../plugins/config.js'

/** An app whose log lines (at `level`) are collected in `lines`. */
async function loggingApp (t: { teardown: (fn: () => unknown) => void }, overrides: Partial<Config>) {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done() } })
  const config = await testConfig(overrides)
  const app = await buildApp({ config }, { logger: { ...(serverOptions(config).logger as object), stream } })
  t.teardown(() => app.close())
  return { app, lines }
}

t.test('the database cut while a query carrying a webhook secret runs: no secret, no query, no parameter logged', async (t) => {
  const databaseUrl = await fileDatabaseUrl()
  const target = new URL(databaseUrl)
  const relay = await tcpRelay(target.hostname, Number(target.port || 5432))
  t.teardown(relay.cut)
  for (const level of ['info', 'trace'] as const) {
    const { app, lines } = await loggingApp(t, { LOG_LEVEL: level, DATABASE_URL: viaRelay(databaseUrl, relay) })
    const shop = await createShop(app)
    const { endpoint, secret } = await createEndpoint(app, shop, { url: 'https://hooks.example.invalid/x' })
    // The statement that stores the new secret is held on its way, then the database goes away.
    relay.pauseOn((chunk) => chunk.includes('whsec_'))
    const rotating = app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, headers: shop.headers })
    await waitUntil('the statement held on its way', () => relay.paused, 10_000, 10)
    await relay.cut()
    relay.resume()
    const res = await rotating
    t.equal(res.statusCode, 503, `${level}: the rotation failed with the database`)
    t.ok(lines.some((line) => line.includes('database unreachable')), `${level}: the outage is logged`)
    const outage = lines.find((line) => line.includes('database unreachable'))!
    t.match(JSON.parse(outage).err, { type: String, cause: { code: String } }, `${level}: by type and code`)
    t.same(lines.filter((line) => /whsec_/.test(line) || line.includes(secret.slice(6))), [], `${level}: no webhook secret, not even without its prefix`)
    t.same(lines.filter((line) => /Failed query|params:|webhook_endpoints|\$1/.test(line)), [], `${level}: no query, no parameters`)
    t.same(lines.filter((line) => line.includes(shop.apiKey) || line.includes(INTERNAL_TOKEN)), [], `${level}: no key, no token`)
    if (level === 'info') t.comment(outage)
    await relay.restore()
  }
})

t.test('a key sent by mistake in a query string is not logged', async (t) => {
  const { app, lines } = await loggingApp(t, { LOG_LEVEL: 'info' })
  const shop = await createShop(app)
  for (const url of [`/v1/categories?api_key=${shop.apiKey}`, `/v1/nowhere?x=1&token=${shop.apiKey}`, `/v1/categories?q=${shop.apiKey}`,
    `/v1/categories?apiKey=${encodeURIComponent(shop.apiKey)}&internal=${INTERNAL_TOKEN}`]) {
    const res = await app.inject({ method: 'GET', url, headers: shop.headers })
    t.ok(res.statusCode < 500)
  }
  t.ok(lines.some((line) => line.includes('/v1/categories?api_key=[redacted]')), 'the URL is logged, its key is not')
  t.same(lines.filter((line) => line.includes(shop.apiKey) || line.includes(shop.apiKey.slice(11))), [], 'no key')
  t.same(lines.filter((line) => line.includes(INTERNAL_TOKEN)), [], 'no operator token')
})

t.test('the error serializer: type, codes, cause and frames; the message only of errors that are not the database\'s', async (t) => {
  const cause = Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' })
  const failed = Object.assign(new Error('Failed query: update t set secret = $1\nparams: whsec_abc'), { name: 'DrizzleQueryError', query: 'update …', params: ['whsec_abc'], cause })
  const logged = serializeError(failed) as Record<string, any>
  t.equal(logged.type, 'DrizzleQueryError')
  t.notOk('message' in logged, 'no message: it holds the query and its parameters')
  t.notOk(JSON.stringify(logged).includes('whsec_'), 'no parameter anywhere, the stack included')
  t.match(logged.cause, { type: 'Error', code: 'CONNECTION_CLOSED', message: /CONNECTION_CLOSED/ })
  const postgres = Object.assign(new Error('invalid input syntax for type uuid: "service_sk_x"'), { name: 'PostgresError', code: '22P02', routine: 'string_to_uuid' })
  t.same(Object.keys(serializeError(postgres) as object).sort(), ['code', 'routine', 'stack', 'type'])
  t.equal(loggedUrl('/v1/x?after=abc&api_key=s&Token=t&wait=3'), '/v1/x?after=abc&api_key=[redacted]&Token=[redacted]&wait=3')
})
