// The operator CLI works on the same database as the service, prints the
// operator API's shapes (--json for scripts, lines for people), and checks its
// arguments before it opens any database.
import t from 'tap'
import { runCli } from '../fixtures/cli.js'
import { build, fileDatabaseUrl, testConfig } from '../helper.js'

// The service's Redis too (the CLI itself needs none: revocations reach running instances through Postgres).
const cli = async (...args: string[]) => {
  const config = await testConfig()
  return runCli({ DATABASE_URL: await fileDatabaseUrl(), REDIS_URL: config.REDIS_URL!, REDIS_PREFIX: config.REDIS_PREFIX }, ...args)
}

t.test('operator jobs from the command line', async (t) => {
  const app = await build(t)

  const shop = await cli('shop:create', 'CLI shop', '--json')
  t.equal(shop.code, 0, shop.stderr)
  const shopId = JSON.parse(shop.stdout).shop.id

  const key = await cli('key:create', shopId, 'bot', '--json')
  t.equal(key.code, 0, key.stderr)
  const { apiKey, secret } = JSON.parse(key.stdout)
  const headers = { authorization: `Bearer ${secret}` }
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers })).statusCode, 200, 'the key works against the service')

  const rate = await cli('rate:set', shopId, 'EUR', '101.25', '--json')
  t.equal(rate.code, 0, rate.stderr)
  const rates = (await app.inject({ method: 'GET', url: '/v1/currency-rates', headers })).json().data.rates
  t.same(rates.map((r: { code: string, rate: number }) => [r.code, r.rate]), [['EUR', 101.25]])

  const list = await cli('key:list', shopId, '--json')
  t.equal(list.code, 0)
  t.notOk(list.stdout.includes(secret), 'the list never shows the secret')
  t.equal(JSON.parse(list.stdout).apiKeys[0].id, apiKey.id)

  const revoke = await cli('key:revoke', shopId, apiKey.id, '--json')
  t.equal(revoke.code, 0, revoke.stderr)
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers })).statusCode, 401, 'revoked for the service at once')

  const demo = await cli('seed:demo', 'CLI demo', '--json')
  t.equal(demo.code, 0, demo.stderr)
  const { productId } = JSON.parse(demo.stdout)
  const purchase = await cli('order:purchase', productId, '2', '--json')
  t.equal(purchase.code, 0, purchase.stderr)
  const order = JSON.parse(purchase.stdout).order
  t.equal(order.status, 'paid')
  t.equal(typeof order.amount, 'number', 'money as a number, as the API shows it')
  t.match(order, { quantity: 2, deliveredValues: [], takenAt: null, assigneeType: 'user' }, 'the order view')
  const viaApi = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: { authorization: `Bearer ${JSON.parse(demo.stdout).secret}` } })
  t.same(order, viaApi.json().data.order, 'exactly what GET /v1/orders/{id} answers')
  const confirm = await cli('order:confirm', order.id)
  t.equal(confirm.code, 1, 'a paid order cannot be confirmed')
  t.match(confirm.stderr, /ORDER_INVALID_STATUS/)

  const human = await cli('key:list', shopId)
  t.equal(human.code, 0)
  t.match(human.stdout, new RegExp(`^${apiKey.id}  ${apiKey.prefix}…  bot  created \\S+ .*REVOKED `), 'lines for people without --json')
  const rateLine = await cli('rate:set', shopId, 'EUR', '99.5')
  t.match(rateLine.stdout, /^1 EUR = 99\.5 RUB \(rate /)
})

t.test('usage errors and help come before any database is opened', async (t) => {
  // Nothing listens on port 1: a command that opened the database would fail differently.
  const nowhere = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }
  const usage = await runCli(nowhere, 'rate:set', '6f1c0000-0000-4000-8000-000000000000', 'eur', '1')
  t.equal(usage.code, 2)
  t.match(usage.stderr, /^error: .*\nusage: shop-seller-api rate:set <shopId> <code> <rate>/)
  const extra = await runCli(nowhere, 'key:list', '6f1c0000-0000-4000-8000-000000000000', 'surplus')
  t.equal(extra.code, 2)
  t.match(extra.stderr, /unexpected argument "surplus"/)
  const help = await runCli(nowhere, 'key:create', '--help')
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage: shop-seller-api key:create <shopId> <name> \[--json\]/)
  const all = await runCli(nowhere, '--help')
  t.equal(all.code, 0)
  t.match(all.stdout, /Commands:[\s\S]*order:confirm/)
  const unknown = await runCli(nowhere, 'no-such-command')
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown command "no-such-command"/)

  const away = await runCli(nowhere, 'key:list', '6f1c0000-0000-4000-8000-000000000000')
  t.equal(away.code, 1, 'a valid command does try the database')
  t.equal(away.stderr.trim().split('\n').length, 1, `one line: ${away.stderr}`)
  t.match(away.stderr, /^error: cannot reach the database nowhere at 127\.0\.0\.1:1 \(ECONNREFUSED\)/)

  const keyless = await runCli({ ...nowhere, VALUES_IN_CLEAR: undefined }, 'key:list', '6f1c0000-0000-4000-8000-000000000000')
  t.equal(keyless.code, 1, 'a server database without the values key: refused before it is opened')
  t.match(keyless.stderr, /^Invalid configuration: VALUES_ENCRYPTION_KEY is not set, and DATABASE_URL is\./)
})
