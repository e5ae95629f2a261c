// No stock value reaches a log line (docs/stock.md): a run that adds, lists,
// delivers and removes codes at LOG_LEVEL=trace, checked on the log stream.
import { Writable } from 'node:stream'
import t from 'tap'
import { buildApp, serverOptions } from '../../app.js'
import { buy } from '../fixtures/orders.js'
import { stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { createShop, testConfig } from '../helper.js'

t.test('stock values stay out of the logs', async (t) => {
  let logs = ''
  const stream = new Writable({ write (chunk, _encoding, done) { logs += chunk.toString(); done() } })
  const config = await testConfig({ LOG_LEVEL: 'trace', VALUES_ENCRYPTION_KEY: stockKey() })
  const app = await buildApp({ config }, { logger: { ...(serverOptions(config).logger as object), stream } })
  t.teardown(() => app.close())

  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock', lowStockThreshold: 1 })
  const values = Array.from({ length: 6 }, (_, i) => `LOGCHECK-${i}-Zq8vW3xK7pL2`)
  const added = await stockCall(app, shop, product.id, 'POST', '/items', { values: [...values, values[0]] }, { 'idempotency-key': 'add-1' })
  t.equal(added.statusCode, 201)
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: [...values, values[0]] }, { 'idempotency-key': 'add-1' })).statusCode, 201, 'replayed')
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items', { values: ['bad\u0000' + values[0]] })).statusCode, 400)
  const list = (await stockCall(app, shop, product.id, 'GET', '/items')).json().data.items
  const order = await buy(app, product, { quantity: 2 })
  t.equal(order.deliveredValues.length, 2)
  t.equal((await app.inject({ method: 'GET', url: `/v1/orders/${order.id}`, headers: shop.headers })).statusCode, 200)
  const removed = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [list[0].id, list[1].id] })
  t.equal(removed.statusCode, 200)
  t.equal((await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: [list[0].id] })).statusCode, 409)
  t.equal((await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/cancel`, headers: shop.headers, payload: { restock: true } })).statusCode, 200)

  t.ok(logs.includes('incoming request'), 'requests were logged at all')
  for (const value of values) t.notOk(logs.includes(value.slice(4)), `no part of ${value.slice(0, 4)}… beyond its preview is in the logs`)
})
