// GET /v1/stats/sales (docs/sales-stats.md): groupings, defaults, refusals,
// empty periods, totals, which orders count, and exact money.
import t, { type Test } from 'tap'
import { act, buy, confirm, orderIn } from '../fixtures/orders.js'
import { createProduct, emailField, productInput } from '../fixtures/products.js'
import {
  addDays, backdate, fileSql, localDate, salesData, salesStats, summed, type SalesAnswer
} from '../fixtures/stats.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

const simpleProduct = (app: App, shop: ShopFixture, title: string, price: number, external = true) =>
  createProduct(app, shop, { title, price, external, fields: [emailField] })

function checkTotals (t: Test, answer: SalesAnswer) {
  t.same(answer.totals, summed(answer.rows), `totals are the rows summed (${answer.groupBy})`)
}

t.test('refusals: 400 VALIDATION_ERROR in the envelope, naming the parameter', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const cases: Array<[Record<string, string>, string]> = [
    [{ from: 'yesterday' }, 'from'],
    [{ to: '2026-02-30' }, 'to'],
    [{ from: '0000-01-01', to: '0000-12-31' }, 'from'],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'from'],
    [{ from: '2025-01-01', to: '2026-01-02' }, 'from'],
    [{ tz: 'Mars/Olympus' }, 'tz'],
    [{ tz: '' }, 'tz'],
    [{ tz: '+03:00' }, 'tz'],
    [{ tz: 'MSK' }, 'tz'],
    [{ tz: 'Europe/Moscow; drop table orders' }, 'tz'],
    [{ groupBy: 'year' }, 'groupBy'],
    [{ productId: 'not-an-id' }, 'productId']
  ]
  for (const [query, name] of cases) {
    const res = await salesStats(app, shop, query)
    t.equal(res.statusCode, 400, `${JSON.stringify(query)}: ${res.body}`)
    const error = res.json().error
    t.equal(error.code, 'VALIDATION_ERROR')
    const named = error.details.some((d: { path: string }) => d.path === `querystring.${name}`)
    t.ok(named, `${JSON.stringify(query)} names ${name}`)
  }
  // The longest range is 366 days counting both ends (a leap year).
  const longest = await salesStats(app, shop, { from: '2024-01-01', to: '2024-12-31' })
  t.equal(longest.statusCode, 200)
  t.equal(longest.json().data.rows.length, 366)
  const unauthenticated = await app.inject({ method: 'GET', url: '/v1/stats/sales' })
  t.equal(unauthenticated.statusCode, 401)
})

const zero = { orders: 0, quantity: 0, gross: 0, refunded: 0, credited: 0 }
const figures = (orders: number, quantity: number, gross: number, refunded: number, credited: number) =>
  ({ orders, quantity, gross, refunded, credited })

t.test('defaults: the 30 days up to today in Europe/Moscow, by day, every day present with zeros', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const answer = await salesData(app, shop)
  const today = localDate(new Date().toISOString(), 'Europe/Moscow')
  t.equal(answer.tz, 'Europe/Moscow')
  t.equal(answer.groupBy, 'day')
  t.equal(answer.to, today)
  t.equal(answer.from, addDays(today, -29))
  t.equal(answer.rows.length, 30)
  t.same(answer.rows.map((r) => r.period), Array.from({ length: 30 }, (_, i) => addDays(answer.from, i)))
  for (const row of answer.rows) {
    t.same(row, { period: row.period, productId: null, productTitle: null, ...zero })
  }
  t.same(answer.totals, { orders: 0, quantity: 0, gross: 0, refunded: 0, credited: 0 })

  const onlyFrom = await salesData(app, shop, { from: addDays(today, -3) })
  t.same([onlyFrom.from, onlyFrom.to, onlyFrom.rows.length], [addDays(today, -3), today, 4])
  const onlyTo = await salesData(app, shop, { to: '2026-03-31' })
  t.same([onlyTo.from, onlyTo.to, onlyTo.rows.length], ['2026-03-02', '2026-03-31', 30])
  // The zone is echoed as given; nothing sold means no product row.
  const byProduct = await salesData(app, shop, { groupBy: 'product', tz: 'Asia/Kolkata' })
  t.equal(byProduct.tz, 'Asia/Kolkata')
  t.same(byProduct.rows, [])
  t.same(byProduct.totals, { orders: 0, quantity: 0, gross: 0, refunded: 0, credited: 0 })
})

t.test('each grouping over a history: day, ISO week, month, product; totals are the rows summed', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const sql = await fileSql(t)
  const keys = await simpleProduct(app, shop, 'Keys', 100)
  const gifts = await simpleProduct(app, shop, 'Gift cards', 250.5)
  // Monday 5 January: two keys (one of quantity 3) credited on the 9th; Wednesday 7th: a gift
  // card refunded on 2 February; Sunday 1 February: a gift card still paid.
  const k1 = await orderIn(app, shop, keys, 'completed')
  await backdate(sql, k1.id, '2026-01-05T10:00:00Z', '2026-01-09T10:00:00Z')
  const k2 = await buy(app, keys, { quantity: 3 })
  await backdate(sql, k2.id, '2026-01-05T23:59:59.999Z')
  const g1 = await orderIn(app, shop, gifts, 'cancelled')
  await backdate(sql, g1.id, '2026-01-07T12:00:00Z', '2026-02-02T00:00:00Z')
  const g2 = await buy(app, gifts)
  await backdate(sql, g2.id, '2026-02-01T00:00:00Z')
  // Outside the range: the day before and the day after.
  const before = await buy(app, keys)
  await backdate(sql, before.id, '2025-12-31T23:59:59.999Z')
  const after = await orderIn(app, shop, keys, 'completed')
  await backdate(sql, after.id, '2026-04-01T00:00:00Z')
  const range = { from: '2026-01-01', to: '2026-03-31', tz: 'UTC' }

  const byDay = await salesData(app, shop, { ...range, groupBy: 'day' })
  t.equal(byDay.rows.length, 90)
  const day = (period: string) => byDay.rows.find((r) => r.period === period)
  t.match(day('2026-01-05'), { orders: 2, quantity: 4, gross: 400, refunded: 0, credited: 0 })
  t.match(day('2026-01-07'), { orders: 1, quantity: 1, gross: 250.5, refunded: 0, credited: 0 })
  t.match(day('2026-01-09'), { orders: 0, quantity: 0, gross: 0, refunded: 0, credited: 100 })
  t.match(day('2026-02-01'), { orders: 1, quantity: 1, gross: 250.5 })
  t.match(day('2026-02-02'), { orders: 0, refunded: 250.5 })
  t.equal(byDay.rows.filter((r) => r.orders > 0 || r.refunded > 0 || r.credited !== 0).length, 5)
  checkTotals(t, byDay)
  t.same(byDay.totals, { orders: 4, quantity: 6, gross: 901, refunded: 250.5, credited: 100 })

  const byWeek = await salesData(app, shop, { ...range, groupBy: 'week' })
  // The first week is the one holding 1 January (a Thursday): it starts on Monday 29 December.
  t.equal(byWeek.rows[0].period, '2025-12-29')
  t.equal(byWeek.rows.at(-1)!.period, '2026-03-30')
  t.equal(byWeek.rows.length, 14)
  t.ok(byWeek.rows.every((r, i) => r.period === addDays('2025-12-29', 7 * i)), 'consecutive Mondays')
  // The 29th–31st December are outside the range: the order of the 31st is not counted.
  t.match(byWeek.rows[0], { orders: 0, gross: 0 })
  t.match(byWeek.rows[1], { period: '2026-01-05', orders: 3, quantity: 5, gross: 650.5, credited: 100 })
  t.match(byWeek.rows[4], { period: '2026-01-26', orders: 1, gross: 250.5, refunded: 0 })
  t.match(byWeek.rows[5], { period: '2026-02-02', orders: 0, refunded: 250.5 })
  checkTotals(t, byWeek)
  t.same(byWeek.totals, byDay.totals)

  const byMonth = await salesData(app, shop, { ...range, groupBy: 'month' })
  t.same(byMonth.rows.map((r) => [r.period, r.orders, r.gross, r.refunded, r.credited]), [
    ['2026-01-01', 3, 650.5, 0, 100],
    ['2026-02-01', 1, 250.5, 250.5, 0],
    ['2026-03-01', 0, 0, 0, 0]
  ])
  // A month is the group's own first day, also when the range starts inside it.
  const midMonth = await salesData(app, shop, { from: '2026-01-06', to: '2026-02-10', tz: 'UTC', groupBy: 'month' })
  t.same(midMonth.rows.map((r) => [r.period, r.orders]), [['2026-01-01', 1], ['2026-02-01', 1]])
  checkTotals(t, byMonth)

  const byProduct = await salesData(app, shop, { ...range, groupBy: 'product' })
  t.same(byProduct.rows, [
    { period: null, productId: gifts.id, productTitle: 'Gift cards', ...figures(2, 2, 501, 250.5, 0) },
    { period: null, productId: keys.id, productTitle: 'Keys', ...figures(2, 4, 400, 0, 100) }
  ])
  checkTotals(t, byProduct)
  t.same(byProduct.totals, byDay.totals)

  // One product: the same figures, restricted.
  const onlyKeys = await salesData(app, shop, { ...range, groupBy: 'month', productId: keys.id })
  t.same(onlyKeys.rows.map((r) => [r.period, r.orders, r.gross, r.credited]), [
    ['2026-01-01', 2, 400, 100], ['2026-02-01', 0, 0, 0], ['2026-03-01', 0, 0, 0]
  ])
  const keysByProduct = await salesData(app, shop, { ...range, groupBy: 'product', productId: keys.id })
  t.same(keysByProduct.rows.map((r) => r.productId), [keys.id])
})

t.test('by product: gross descending, then title; the product\'s current title', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const products = await Promise.all(
    ['Beta', 'Alpha', 'Gamma'].map((title, i) => simpleProduct(app, shop, title, i === 2 ? 5 : 10))
  )
  for (const product of products) await buy(app, product)
  const renamed = await app.inject({
    method: 'PUT',
    url: `/v1/products/${products[2].id}`,
    headers: shop.headers,
    payload: productInput(products[2].categoryId, { title: 'Gamma II', price: 5, fields: [emailField] })
  })
  t.equal(renamed.statusCode, 200, renamed.body)
  const answer = await salesData(app, shop, { groupBy: 'product' })
  t.same(answer.rows.map((r) => [r.productTitle, r.gross]), [['Alpha', 10], ['Beta', 10], ['Gamma II', 5]])
})

t.test('only the shop\'s external products count, by their flag now, orders and ledger rows alike', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const visible = await simpleProduct(app, shop, 'Visible', 10)
  const hidden = await simpleProduct(app, shop, 'Hidden', 1000, false)
  await buy(app, visible)
  const hiddenOrder = await buy(app, hidden)
  // The operator side confirms what the seller's own tools delivered: a credit of 1000.
  const sql = await fileSql(t)
  await sql`update orders set status = 'awaiting_confirmation' where id = ${hiddenOrder.id}`
  t.equal((await confirm(app, hiddenOrder.id)).statusCode, 200)
  const tz = 'UTC'
  const other = await createShop(app, 'Other shop')
  const theirs = await simpleProduct(app, other, 'Theirs', 77)
  await orderIn(app, other, theirs, 'completed')

  const mine = await salesData(app, shop, { tz, groupBy: 'product' })
  t.same(mine.rows.map((r) => [r.productId, r.gross, r.credited]), [[visible.id, 10, 0]])
  t.same(mine.totals, { orders: 1, quantity: 1, gross: 10, refunded: 0, credited: 0 })
  const hiddenOnly = await salesData(app, shop, { tz, productId: hidden.id })
  t.same(hiddenOnly.totals, zero, 'the shop\'s own hidden product: zeros')

  // Another shop's product, or no product: 404 as on the product endpoints.
  for (const productId of [theirs.id, '00000000-0000-4000-8000-000000000000']) {
    const res = await salesStats(app, shop, { productId })
    t.equal(res.statusCode, 404, res.body)
    t.equal(res.json().error.code, 'ORDER_NOT_FOUND')
  }

  // Automation switched on: its past order and its credit count from now on.
  const switched = await app.inject({
    method: 'PUT',
    url: `/v1/products/${hidden.id}`,
    headers: shop.headers,
    payload: productInput(hidden.categoryId, { title: 'Hidden', price: 1000, external: true, fields: [emailField] })
  })
  t.equal(switched.statusCode, 200, switched.body)
  const now = await salesData(app, shop, { tz, groupBy: 'product' })
  t.same(now.rows.map((r) => [r.productTitle, r.gross, r.credited]), [['Hidden', 1000, 1000], ['Visible', 10, 0]])
  const byDay = await salesData(app, shop, { tz })
  t.same(byDay.totals, now.totals)
})

t.test('money is summed exactly: 0.1 + 0.2 is 0.3', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const dime = await simpleProduct(app, shop, 'Dime', 0.1)
  const twoDimes = await simpleProduct(app, shop, 'Two dimes', 0.2)
  t.not(0.1 + 0.2, 0.3, 'floats would not add up')
  for (const product of [dime, twoDimes]) {
    const order = await orderIn(app, shop, product, 'awaiting_confirmation')
    t.equal((await confirm(app, order.id)).statusCode, 200)
  }
  const cancelled = await buy(app, dime)
  t.equal((await act(app, shop, cancelled.id, 'cancel')).statusCode, 200)
  for (const groupBy of ['day', 'week', 'month', 'product']) {
    const answer = await salesData(app, shop, { tz: 'UTC', groupBy })
    t.same(answer.totals, { orders: 3, quantity: 3, gross: 0.4, refunded: 0.1, credited: 0.3 }, groupBy)
  }
  const byDay = await salesData(app, shop, { tz: 'UTC', from: localDate(new Date().toISOString(), 'UTC') })
  t.equal(byDay.rows.length, 1)
  t.match(byDay.rows[0], { gross: 0.4, credited: 0.3, refunded: 0.1 })
})
