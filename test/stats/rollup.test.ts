// The sales statistics' rollup (docs/sales-stats.md, "How it is computed"): the
// ends of a range read from quarter hours, its inside from UTC days, and a
// product's change of `external` moving its history in and out of the shop's sums.
import t from 'tap'
import { buy } from '../fixtures/orders.js'
import { createProduct, emailField, productInput } from '../fixtures/products.js'
import { backdate, fileSql, salesData } from '../fixtures/stats.js'
import { build, createShop } from '../helper.js'

t.test('product and day groups agree at quarter-hour edges (+05:45, −03:30), a product switched off leaves', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const sql = await fileSql(t)
  const product = await createProduct(app, shop, { title: 'Key', price: 10, fields: [emailField] })
  // Kathmandu's 2 March begins at 1 March 18:15 UTC; St John's 2 March at 2 March 03:30 UTC.
  const instants = ['2026-03-01T18:14:59.999Z', '2026-03-01T18:15:00Z', '2026-03-02T03:29:59.999Z',
    '2026-03-02T03:30:00Z', '2026-03-02T23:59:59.999Z', '2026-03-03T00:00:00Z', '2026-03-05T12:00:00Z']
  for (const at of instants) await backdate(sql, (await buy(app, product)).id, at)
  const expected: Record<string, Record<string, number>> = {
    'Asia/Kathmandu': { '2026-03-01': 1, '2026-03-02': 3, '2026-03-03': 2, '2026-03-04': 0, '2026-03-05': 1 },
    'America/St_Johns': { '2026-03-01': 3, '2026-03-02': 3, '2026-03-03': 0, '2026-03-04': 0, '2026-03-05': 1 }
  }
  for (const [tz, days] of Object.entries(expected)) {
    const byDay = await salesData(app, shop, { tz, from: '2026-03-01', to: '2026-03-05' })
    t.same(Object.fromEntries(byDay.rows.map((r) => [r.period, r.orders])), days, tz)
    const ranges = [['2026-03-02', '2026-03-02'], ['2026-03-02', '2026-03-03'], ['2026-03-01', '2026-03-05']]
    for (const [from, to] of ranges) {
      const byProduct = await salesData(app, shop, { tz, from, to, groupBy: 'product' })
      const want = Object.entries(days).filter(([d]) => d >= from && d <= to).reduce((n, [, c]) => n + c, 0)
      t.equal(byProduct.totals.orders, want, `${tz} ${from}..${to} by product`)
    }
  }

  const setExternal = async (external: boolean) => {
    const res = await app.inject({
      method: 'PUT',
      url: `/v1/products/${product.id}`,
      headers: shop.headers,
      payload: productInput(product.categoryId, { title: 'Key', price: 10, external, fields: [emailField] })
    })
    t.equal(res.statusCode, 200, res.body)
  }
  const range = { tz: 'UTC', from: '2026-03-01', to: '2026-03-31' }
  await setExternal(false)
  for (const groupBy of ['day', 'month', 'product']) {
    t.equal((await salesData(app, shop, { ...range, groupBy })).totals.orders, 0, `switched off, by ${groupBy}`)
  }
  await setExternal(true)
  for (const groupBy of ['day', 'month', 'product']) {
    t.equal((await salesData(app, shop, { ...range, groupBy })).totals.orders, 7, `switched on again, by ${groupBy}`)
  }
})
