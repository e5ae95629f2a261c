// The service behind PgBouncer in transaction mode (run by .ci/pgbouncer.sh,
// which starts the pooler and sets TEST_DATABASE_POOLER_URL; the route, events,
// webhook and idempotency files run through it in the same step):
// - the pooler is recognised, and what needs a session goes to DATABASE_DIRECT_URL;
// - without DATABASE_DIRECT_URL the start is refused with a line that says why;
// - the server connections' missing client_connection_check_interval is reported.
import { Writable } from 'node:stream'
import t from 'tap'
import { buildApp, serverOptions } from '../../app.js'
import { detectPooler } from '../../db/core/pooler.js'
import { act, buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { build, createShop, fileDatabaseUrl, testConfig, throughPooler } from '../helper.js'

if (!process.env.TEST_DATABASE_POOLER_URL) {
  throw new Error('TEST_DATABASE_POOLER_URL is not set: run this file through .ci/pgbouncer.sh, which starts PgBouncer in transaction mode')
}

t.test('PgBouncer is recognised; Postgres itself is not', async (t) => {
  const direct = await fileDatabaseUrl()
  const { DATABASE_URL: pooled } = throughPooler(direct)
  t.match(await detectPooler(pooled), { pooler: /^PgBouncer/ })
  t.same(await detectPooler(direct), { pooler: null })
})

t.test('through the pooler without a direct URL the start is refused, saying what to set', async (t) => {
  const config = await testConfig({ DATABASE_DIRECT_URL: undefined })
  await t.rejects(buildApp({ config }), { name: 'PoolerWithoutDirectUrlError', message: /DATABASE_URL points at PgBouncer.*set DATABASE_DIRECT_URL/ })
})

t.test('through the pooler: purchases, takes and the long poll work; the missing check interval is reported', async (t) => {
  let logs = ''
  const stream = new Writable({ write (chunk, _encoding, done) { logs += chunk.toString(); done() } })
  const config = await testConfig({ LOG_LEVEL: 'warn' })
  t.not(config.DATABASE_URL, config.DATABASE_DIRECT_URL)
  const app = await buildApp({ config }, { logger: { ...(serverOptions(config).logger as object), stream } })
  t.teardown(() => app.close())
  t.match(logs, /client_connection_check_interval=0.*ALTER ROLE <user> SET client_connection_check_interval = '200ms'/)

  const other = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  // A long poll held on one instance is woken by the event another writes (LISTEN on the direct connection).
  const latest = await other.inject({ method: 'GET', url: '/v1/events?after=latest', headers: shop.headers })
  const feed = other.inject({ method: 'GET', url: `/v1/events?after=${latest.json().data.nextCursor}&wait=20`, headers: shop.headers })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const order = await buy(app, product)
  const woken = await feed
  t.equal(woken.statusCode, 200, woken.body)
  t.ok(woken.json().data.events.some((e: { data: { orderId?: string, order?: { id: string } } }) => JSON.stringify(e.data).includes(order.id)), 'the held request got the purchase')
  // Every statement the same shape many times: named prepared statements would fail on another server connection.
  const statuses = []
  for (let i = 0; i < 20; i++) statuses.push((await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })).statusCode)
  t.same([...new Set(statuses)], [200], 'the same read 20 times')
  const taken = await act(other, shop, order.id, 'take', undefined, { 'idempotency-key': `take-${order.id}` })
  t.equal(taken.statusCode, 200, taken.body)
})
