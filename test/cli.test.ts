// The operator CLI works on the same database as the service.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { build, fileDatabaseUrl, testConfig } from './helper.js'

const run = promisify(execFile)
const root = new URL('..', import.meta.url).pathname

async function cli (...args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  const config = await testConfig()
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'cli.ts', ...args], {
      // The service's Redis too: the CLI tells running instances about revocations there.
      cwd: root, env: { ...process.env, DATABASE_URL: await fileDatabaseUrl(), REDIS_URL: config.REDIS_URL, REDIS_PREFIX: config.REDIS_PREFIX }
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number, stdout: string, stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

t.test('operator jobs from the command line', async (t) => {
  const app = await build(t)

  const shop = await cli('shop:create', 'CLI shop')
  t.equal(shop.code, 0, shop.stderr)
  const shopId = JSON.parse(shop.stdout).shop.id

  const key = await cli('key:create', shopId, 'bot')
  t.equal(key.code, 0, key.stderr)
  const { apiKey, secret } = JSON.parse(key.stdout)
  const headers = { authorization: `Bearer ${secret}` }
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers })).statusCode, 200, 'the key works against the service')

  const rate = await cli('rate:set', shopId, 'EUR', '101.25')
  t.equal(rate.code, 0, rate.stderr)
  const rates = (await app.inject({ method: 'GET', url: '/v1/currency-rates', headers })).json().data.rates
  t.same(rates.map((r: { code: string, rate: number }) => [r.code, r.rate]), [['EUR', 101.25]])

  const list = await cli('key:list', shopId)
  t.equal(list.code, 0)
  t.notOk(list.stdout.includes(secret), 'the list never shows the secret')
  t.equal(JSON.parse(list.stdout).apiKeys[0].id, apiKey.id)

  const revoke = await cli('key:revoke', shopId, apiKey.id)
  t.equal(revoke.code, 0, revoke.stderr)
  t.equal((await app.inject({ method: 'GET', url: '/v1/currency-rates', headers })).statusCode, 401, 'revoked for the service at once')

  const demo = await cli('seed:demo', 'CLI demo')
  t.equal(demo.code, 0, demo.stderr)
  const { productId } = JSON.parse(demo.stdout)
  const purchase = await cli('order:purchase', productId, '2')
  t.equal(purchase.code, 0, purchase.stderr)
  const order = JSON.parse(purchase.stdout).order
  t.equal(order.status, 'paid')
  const confirm = await cli('order:confirm', order.id)
  t.equal(confirm.code, 1, 'a paid order cannot be confirmed')
  t.match(confirm.stderr, /ORDER_INVALID_STATUS/)

  const usage = await cli('rate:set', shopId, 'eur', 'abc')
  t.equal(usage.code, 2)
  t.match(usage.stderr, /usage: npm run cli -- rate:set/)
  const unknown = await cli('no-such-command')
  t.equal(unknown.code, 2)
  t.match(unknown.stdout, /Commands:/)
})
