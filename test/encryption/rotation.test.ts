// Changing the values key (docs/security.md): values delivered under the old
// key read with it kept as VALUES_ENCRYPTION_KEY_PREVIOUS; without it, or with
// no key at all, a clear 503 naming the variable and never garbage; values a
// release before this encryption stored plain (as a server without a key still
// does) are sealed by `values:reencrypt`, resumably, and after it the new key
// alone reads everything.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import postgres from 'postgres'
import t from 'tap'
import { act, buy } from '../fixtures/orders.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { feed, getOrder } from '../fixtures/delivery-endpoint.js'
import { leaked, pgDump, secretValue } from '../fixtures/secrets-at-rest.js'
import { build, createShop, fileDatabaseUrl, type App, type ShopFixture } from '../helper.js'
import { loadConfig } from '../../plugins/config.js'
import { deprecatedKeyVariables, stockCipherFor } from '../../lib/embedded/stock-key.js'

const exec = promisify(execFile)
const root = new URL('../..', import.meta.url).pathname

const listAll = (app: App, shop: ShopFixture) =>
  app.inject({ method: 'GET', url: '/v1/orders?status=awaiting_confirmation&limit=100', headers: shop.headers })

t.test('rotation reads old values with the previous key, refuses clearly without it, and the CLI seals what is left', async (t) => {
  const oldKey = stockKey()
  const newKey = stockKey()
  const url = await fileDatabaseUrl()
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  const botValues = [secretValue('old-1'), secretValue('old-2')]
  const stockValue = secretValue('old-stock')
  const plainValue = secretValue('plain')

  const before = await build(t, { VALUES_ENCRYPTION_KEY: oldKey })
  const shop = await createShop(before)
  const manual = await stockProduct(before, shop, { autoDelivery: 'off' })
  const byBot = await buy(before, manual)
  await act(before, shop, byBot.id, 'take')
  const idempotent = { 'idempotency-key': `deliver-${byBot.id}` }
  const first = await act(before, shop, byBot.id, 'deliver', { values: botValues }, idempotent)
  t.equal(first.statusCode, 200)
  const fromStock = await stockProduct(before, shop)
  await addValues(before, shop, fromStock.id, [stockValue])
  const instant = await buy(before, fromStock)
  t.same(instant.deliveredValues, [stockValue])

  // The new key alone: a clear refusal wherever the old values would be shown, never garbage.
  const newOnly = await build(t, { VALUES_ENCRYPTION_KEY: newKey })
  for (const [what, res] of [
    ['the order', await newOnly.inject({ method: 'GET', url: `/v1/orders/${byBot.id}`, headers: shop.headers })],
    ['the list', await listAll(newOnly, shop)],
    ['the feed', await newOnly.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })],
    ['the idempotent replay', await act(newOnly, shop, byBot.id, 'deliver', { values: botValues }, idempotent)]
  ] as const) {
    t.equal(res.statusCode, 503, `${what}: 503`)
    t.match(res.json().error.message, /neither VALUES_ENCRYPTION_KEY \(\w+\) nor VALUES_ENCRYPTION_KEY_PREVIOUS is that key; set VALUES_ENCRYPTION_KEY_PREVIOUS/, `${what}: says what to set`)
    t.same(leaked(res.body, [...botValues, stockValue]), [], `${what}: shows no value`)
  }

  // A server database without any key: the same refusal, naming the variable; new values are stored plain.
  const noKey = await build(t)
  const refused = await noKey.inject({ method: 'GET', url: `/v1/orders/${byBot.id}`, headers: shop.headers })
  t.equal(refused.statusCode, 503)
  t.match(refused.json().error.message, /VALUES_ENCRYPTION_KEY is not set; set VALUES_ENCRYPTION_KEY/)
  const plain = await buy(noKey, manual)
  await act(noKey, shop, plain.id, 'take')
  t.same((await act(noKey, shop, plain.id, 'deliver', { value: plainValue })).json().data.order.deliveredValues, [plainValue])
  const [{ clear }] = await sql`select count(*)::int as clear from orders where delivered_values = ${sql.json([plainValue])}`
  t.equal(clear, 1, 'without a key the values are stored plain, as before this encryption')

  // The new key with the old one as previous reads all three kinds.
  const rotated = await build(t, { VALUES_ENCRYPTION_KEY: newKey, VALUES_ENCRYPTION_KEY_PREVIOUS: oldKey })
  t.same((await getOrder(rotated, shop, byBot.id)).deliveredValues, botValues)
  t.same((await getOrder(rotated, shop, instant.id)).deliveredValues, [stockValue])
  t.same((await getOrder(rotated, shop, plain.id)).deliveredValues, [plainValue])
  const replay = await act(rotated, shop, byBot.id, 'deliver', { values: botValues }, idempotent)
  t.equal(replay.body, first.body, 'the idempotent replay, sealed under the old key')

  // values:reencrypt, one row per batch, then again: nothing left; the dump shows no value.
  const { REDIS_URL, REDIS_PREFIX } = before.config
  const env = { ...process.env, DATABASE_URL: url, REDIS_URL, REDIS_PREFIX, VALUES_ENCRYPTION_KEY: newKey, VALUES_ENCRYPTION_KEY_PREVIOUS: oldKey }
  const run = await exec(process.execPath, ['--import', 'tsx', 'cli.ts', 'values:reencrypt', '1', '--json'], { cwd: root, env })
  const result = JSON.parse(run.stdout)
  t.match(result, { remaining: 0 })
  const done = Object.fromEntries(result.places.map((p: { place: string, done: number }) => [p.place, p.done]))
  t.same(done, { 'stock items': 1, orders: 3, events: 3, 'idempotency records': 0, 'redis idempotency records': 1 },
    'the delivered stock item, every order with values (sealed again or for the first time), the order.delivered events, the deliver\'s record')
  t.match(run.stderr, /orders: 1 done, 2 to go/, 'progress on the way')
  const again = await exec(process.execPath, ['--import', 'tsx', 'cli.ts', 'values:reencrypt', '--json'], { cwd: root, env })
  t.match(JSON.parse(again.stdout), { reencrypted: 0, remaining: 0 }, 'resumable: nothing left to do')
  const [{ keys }] = await sql`select array_agg(distinct delivered_values->>'keyId') as keys from orders where delivered_values <> '[]'::jsonb`
  t.same(keys, [rotated.stockCipher!.keyId], 'all under the new key')
  t.same(leaked(await pgDump(url), [...botValues, stockValue, plainValue]), [], 'no value in pg_dump')

  // The new key alone now reads every order and event.
  const after = await build(t, { VALUES_ENCRYPTION_KEY: newKey })
  const listed = (await listAll(after, shop)).json().data.orders as Array<{ id: string, deliveredValues: string[] }>
  t.same(new Map(listed.map((o) => [o.id, o.deliveredValues])), new Map([[byBot.id, botValues], [instant.id, [stockValue]], [plain.id, [plainValue]]]))
  const delivered = (await feed(after, shop)).filter((e) => e.type === 'order.delivered').map((e) => e.data.order.deliveredValues)
  t.same(delivered, [botValues, [stockValue], [plainValue]])
  const replayed = await act(after, shop, byBot.id, 'deliver', { values: botValues }, idempotent)
  t.equal(replayed.body, first.body, 'the idempotent replay from Redis, sealed again')
})

t.test('the deprecated names still work, with a warning; a conflicting pair is refused', async (t) => {
  const key = stockKey()
  const config = loadConfig({}, { STOCK_ENCRYPTION_KEY: key, DATA_DIR: 'memory://' })
  t.equal(config.STOCK_ENCRYPTION_KEY, key)
  t.throws(() => loadConfig({ VALUES_ENCRYPTION_KEY: key, STOCK_ENCRYPTION_KEY: stockKey() }), /STOCK_ENCRYPTION_KEY=\(value hidden\): expected to be unset, or equal to VALUES_ENCRYPTION_KEY/)
  const app = await build(t, { STOCK_ENCRYPTION_KEY: key })
  t.equal(app.stockCipher?.keyId, stockCipherFor({ DATA_DIR: 'memory://', VALUES_ENCRYPTION_KEY: key })?.keyId, 'the old name gives the key')
  t.same(deprecatedKeyVariables(app.config), ['STOCK_ENCRYPTION_KEY (now VALUES_ENCRYPTION_KEY)'], 'named in the warning at start')
  t.same(deprecatedKeyVariables({ ...app.config, STOCK_ENCRYPTION_KEY: undefined, VALUES_ENCRYPTION_KEY: key }), [])
})
