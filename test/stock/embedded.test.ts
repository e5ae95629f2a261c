// Stock on the embedded default (PGlite, no Redis, no key set): a key is
// generated into DATA_DIR and kept, so values added before a restart are still
// readable after it; delivery runs in PGlite's transactions alike.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../app.js'
import { STOCK_KEY_FILE } from '../../lib/embedded/stock-key.js'
import { loadConfig } from '../../plugins/config.js'
import { buy } from '../fixtures/orders.js'
import { addValues, stockCall, stockProduct } from '../fixtures/stock.js'
import { createShop, INTERNAL_TOKEN, type App } from '../helper.js'

t.test('the embedded default keeps a generated key in DATA_DIR', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'seller-api-stock-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const config = loadConfig({}, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', INTERNAL_TOKEN, PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0 })
  const start = async () => await buildApp({ config }) as unknown as App

  let app = await start()
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock' })
  await addValues(app, shop, product.id, ['EMBEDDED-CODE-0001', 'EMBEDDED-CODE-0002'])
  const order = await buy(app, product)
  t.same(order.deliveredValues, ['EMBEDDED-CODE-0001'])
  t.equal(statSync(join(dataDir, STOCK_KEY_FILE)).mode & 0o777, 0o600, 'the key file is private')
  await app.close()

  app = await start()
  t.teardown(() => app.close())
  const [item] = (await stockCall(app, shop, product.id, 'GET', '/items?status=available')).json().data.items
  const removed = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [item.id] })
  t.equal(removed.statusCode, 200, removed.body)
  t.equal(removed.json().data.items[0].value, 'EMBEDDED-CODE-0002', 'readable after a restart: the same key')
})
