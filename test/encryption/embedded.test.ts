// Delivered values at rest on the embedded default (PGlite, no Redis, the key
// generated into DATA_DIR): after deliveries from stock and by a bot with an
// idempotent retry (whose record lives in the database here), no file of the
// data directory holds a value or its first five characters, and after a
// restart the orders, the feed and the replay still show them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../plugins/config.js'
import { act, buy } from '../fixtures/orders.js'
import { addValues, stockProduct } from '../fixtures/stock.js'
import { feed, getOrder } from '../fixtures/delivery-endpoint.js'
import { filesUnder, leaked, secretValue } from '../fixtures/secrets-at-rest.js'
import { createShop, INTERNAL_TOKEN, type App } from '../helper.js'

t.test('the embedded default seals delivered values in its data directory', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'seller-api-values-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const config = loadConfig({}, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', INTERNAL_TOKEN, PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0 })
  const start = async () => await buildApp({ config }) as unknown as App
  const stockValues = [secretValue('embedded-stock-1'), secretValue('embedded-stock-2')]
  const botValues = [secretValue('embedded-bot')]

  let app = await start()
  const shop = await createShop(app)
  const fromStock = await stockProduct(app, shop)
  await addValues(app, shop, fromStock.id, stockValues)
  const instant = await buy(app, fromStock, { quantity: 2 })
  t.same(instant.deliveredValues, stockValues)
  const manual = await stockProduct(app, shop, { autoDelivery: 'off' })
  const byBot = await buy(app, manual)
  await act(app, shop, byBot.id, 'take')
  const idempotent = { 'idempotency-key': `deliver-${byBot.id}` }
  const first = await act(app, shop, byBot.id, 'deliver', { values: botValues }, idempotent)
  t.same(first.json().data.order.deliveredValues, botValues)
  await app.close()

  const files = await filesUnder(dataDir)
  t.ok(files.length > 1_000_000, 'the data directory was read')
  t.same(leaked(files, [...stockValues, ...botValues]), [], 'no value, nor its first five characters, in any file of DATA_DIR')

  app = await start()
  t.teardown(() => app.close())
  t.same((await getOrder(app, shop, instant.id)).deliveredValues, stockValues, 'readable after a restart: the same key')
  t.same((await feed(app, shop)).filter((e) => e.type === 'order.delivered').map((e) => e.data.order.deliveredValues), [stockValues, botValues])
  const replay = await act(app, shop, byBot.id, 'deliver', { values: botValues }, idempotent)
  t.equal(replay.headers['idempotency-replayed'], 'true')
  t.equal(replay.body, first.body, 'the replay from the database\'s record')
})
