// Stock values at rest (docs/stock.md): encrypted in the table, unreadable under
// a wrong key (a clear error, never garbage delivered), readable during a
// rotation through VALUES_ENCRYPTION_KEY_PREVIOUS, and re-encrypted by the CLI.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import postgres from 'postgres'
import t from 'tap'
import { buy } from '../fixtures/orders.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { build, createShop, fileDatabaseUrl } from '../helper.js'

const exec = promisify(execFile)
const root = new URL('../..', import.meta.url).pathname
const values = ['SECRET-VALUE-ALPHA-0001', 'SECRET-VALUE-BRAVO-0002', 'SECRET-VALUE-CHARLIE-03', 'SECRET-VALUE-DELTA-0004']

t.test('encrypted at rest, wrong key refused, rotation, re-encryption', async (t) => {
  const oldKey = stockKey()
  const newKey = stockKey()
  const url = await fileDatabaseUrl()
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())

  const first = await build(t, { VALUES_ENCRYPTION_KEY: oldKey })
  const shop = await createShop(first)
  const product = await stockProduct(first, shop, { autoDelivery: 'stock' })
  await addValues(first, shop, product.id, values)

  const dump = (await sql`select s::text as row from stock_items s`).map((r) => r.row).join('\n')
  t.equal(dump.split('\n').length, 4)
  for (const value of values) {
    t.notOk(dump.includes(value) || dump.includes(Buffer.from(value).toString('hex')), 'no value in clear in the table')
    t.notOk(dump.includes(value.slice(0, 5)), 'no more than 4 characters as the preview')
  }

  // A wrong key reads nothing: removal refuses clearly, a purchase waits.
  const wrong = await build(t, { VALUES_ENCRYPTION_KEY: newKey })
  const list = (await stockCall(wrong, shop, product.id, 'GET', '/items')).json().data.items
  const refused = await stockCall(wrong, shop, product.id, 'POST', '/items/remove', { ids: [list[0].id] })
  t.equal(refused.statusCode, 503)
  t.match(refused.json().error.message, /neither VALUES_ENCRYPTION_KEY .* nor VALUES_ENCRYPTION_KEY_PREVIOUS/)
  const waiting = await buy(wrong, product)
  t.match(waiting, { status: 'paid', deliveredValues: [] }, 'no garbage delivered')
  t.equal((await stockCall(wrong, shop, product.id, 'GET', '')).json().data.stock.available, 4, 'nothing taken')

  // Rotation: the new key with the old one as previous reads old items and finds their duplicates.
  const rotated = await build(t, { VALUES_ENCRYPTION_KEY: newKey, VALUES_ENCRYPTION_KEY_PREVIOUS: oldKey })
  t.match(await addValues(rotated, shop, product.id, [values[1], 'SECRET-VALUE-ECHO-00005']), { added: 1, duplicates: 1, filledOrders: 1 })
  const filled = (await rotated.inject({ method: 'GET', url: `/v1/orders/${waiting.id}`, headers: shop.headers })).json().data.order
  t.same(filled.deliveredValues, [values[0]], 'the waiting order got the oldest value')

  // The re-encryption command moves every item to the new key; then the old key is not needed.
  const env = { ...process.env, DATABASE_URL: url, VALUES_ENCRYPTION_KEY: newKey, VALUES_ENCRYPTION_KEY_PREVIOUS: oldKey }
  const out = await exec(process.execPath, ['--import', 'tsx', 'cli.ts', 'stock:reencrypt', '2', '--json'], { cwd: root, env })
  t.match(JSON.parse(out.stdout), { reencrypted: 4, remaining: 0 })
  const again = await exec(process.execPath, ['--import', 'tsx', 'cli.ts', 'stock:reencrypt', '--json'], { cwd: root, env })
  t.match(JSON.parse(again.stdout), { reencrypted: 0, remaining: 0 }, 'resumable: nothing left to do')
  const [{ keys }] = await sql`select count(distinct key_id)::int as keys from stock_items`
  t.equal(keys, 1)
  const current = await build(t, { VALUES_ENCRYPTION_KEY: newKey })
  t.match(await addValues(current, shop, product.id, [values[2]]), { added: 0, duplicates: 1 }, 'duplicates found under the new key alone')
  const order = await buy(current, product, { quantity: 2 })
  t.same(order.deliveredValues, [values[1], values[2]])
})
