// Sales statistics in the seller's time zone, and their agreement with the ledger
// (docs/sales-stats.md).
import t from 'tap'
import { claimAction, openedClaim } from '../fixtures/claims.js'
import { act, buy, confirm, ledger } from '../fixtures/orders.js'
import { createProduct, emailField } from '../fixtures/products.js'
import { addDays, backdate, fileSql, kopecks, localDate, salesData, summed } from '../fixtures/stats.js'
import { build, createShop } from '../helper.js'

t.test('a purchase falling on different dates in two zones is counted on each zone\'s own date', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop, { title: 'Key', price: 42, fields: [emailField] })
  const order = await buy(app, product)
  // Chosen from the purchase's UTC hour: from 11:00 UTC it is already tomorrow at UTC+14,
  // before 11:00 UTC it is still yesterday at UTC−11.
  const hour = new Date(order.createdAt).getUTCHours()
  const zones = hour >= 11 ? ['UTC', 'Pacific/Kiritimati'] : ['UTC', 'Pacific/Pago_Pago']
  const dates = zones.map((tz) => localDate(order.createdAt, tz))
  t.not(dates[0], dates[1], `${order.createdAt} falls on ${dates.join(' and ')}`)
  for (const [i, tz] of zones.entries()) {
    const around = await salesData(app, shop, { tz, from: addDays(dates[i], -1), to: addDays(dates[i], 1) })
    t.same(around.rows.map((r) => [r.period, r.orders, r.gross]), [
      [addDays(dates[i], -1), 0, 0], [dates[i], 1, 42], [addDays(dates[i], 1), 0, 0]
    ], tz)
    // The other zone's date holds nothing in this zone.
    const other = await salesData(app, shop, { tz, from: dates[1 - i], to: dates[1 - i] })
    t.equal(other.totals.orders, 0, `${tz} on ${dates[1 - i]}`)
  }
})

t.test('months, weeks and days begin at local midnight, half-hour offsets and summer time included', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const sql = await fileSql(t)
  const product = await createProduct(app, shop, { title: 'Key', price: 10, fields: [emailField] })
  // 28 February 22:30 UTC is 1 March 01:30 in Moscow (UTC+3): February in UTC, March in Moscow.
  const late = await buy(app, product)
  await backdate(sql, late.id, '2026-02-28T22:30:00Z')
  // Sunday 1 March 18:45 UTC is Monday 2 March 00:15 in Kolkata (UTC+5:30): a new ISO week there.
  const monday = await buy(app, product)
  await backdate(sql, monday.id, '2026-03-01T18:45:00Z')
  // New York moves to summer time on 8 March: 9 March 03:30 UTC is 8 March 23:30 local (UTC−4).
  const summer = await buy(app, product)
  await backdate(sql, summer.id, '2026-03-09T03:30:00Z')
  const range = { from: '2026-02-01', to: '2026-03-31' }

  const months = (tz: string) => salesData(app, shop, { ...range, tz, groupBy: 'month' })
    .then((a) => a.rows.map((r) => [r.period, r.orders]))
  t.same(await months('UTC'), [['2026-02-01', 1], ['2026-03-01', 2]])
  t.same(await months('Europe/Moscow'), [['2026-02-01', 0], ['2026-03-01', 3]])

  const weeks = (tz: string) => salesData(app, shop, { from: '2026-02-23', to: '2026-03-08', tz, groupBy: 'week' })
    .then((a) => a.rows.map((r) => [r.period, r.orders]))
  t.same(await weeks('UTC'), [['2026-02-23', 2], ['2026-03-02', 0]])
  t.same(await weeks('Asia/Kolkata'), [['2026-02-23', 1], ['2026-03-02', 1]])

  const days = await salesData(app, shop, { from: '2026-03-07', to: '2026-03-09', tz: 'America/New_York' })
  t.same(days.rows.map((r) => [r.period, r.orders]), [['2026-03-07', 0], ['2026-03-08', 1], ['2026-03-09', 0]])
})

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random (seed: number) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

t.test('credited and refunded agree with the ledger after random orders, cancels and claim refunds', async (t) => {
  const seed = Number(process.env.STATS_SEED ?? Date.now() % 1_000_000)
  t.comment(`seed ${seed} (STATS_SEED=${seed} replays it)`)
  const next = random(seed)
  const app = await build(t)
  const shop = await createShop(app)
  const prices = [0.1, 0.2, 19.99, 333.33]
  const products = []
  for (const [i, price] of prices.entries()) {
    products.push(await createProduct(app, shop, { title: `Product ${i}`, price, fields: [emailField] }))
  }
  const ok = (res: { statusCode: number, body: string }) => { if (res.statusCode !== 200) throw new Error(res.body) }
  const steps: Record<string, (id: string) => Promise<void>> = {
    paid: async () => {},
    processing: async (id) => ok(await act(app, shop, id, 'take')),
    awaiting: async (id) => { ok(await act(app, shop, id, 'take')); ok(await act(app, shop, id, 'deliver')) },
    completed: async (id) => { await steps.awaiting(id); ok(await confirm(app, id)) },
    // A claim refunded after completion: the credit taken back by a debit row, the buyer refunded.
    claimRefunded: async (id) => {
      await steps.completed(id)
      ok(await claimAction(app, shop, (await openedClaim(app, id)).id, 'refund', { note: 'Refunded' }))
    },
    cancelledPaid: async (id) => ok(await act(app, shop, id, 'cancel')),
    cancelledAwaiting: async (id) => { await steps.awaiting(id); ok(await act(app, shop, id, 'cancel')) }
  }
  const names = Object.keys(steps)
  const productOf = new Map<string, string>()
  for (let i = 0; i < 24; i++) {
    const product = products[Math.floor(next() * products.length)]
    const order = await buy(app, product, { quantity: 1 + Math.floor(next() * 3) })
    productOf.set(order.id, product.id)
    // The first is refunded by a claim, so there is always a debit.
    await steps[i === 0 ? 'claimRefunded' : names[Math.floor(next() * names.length)]](order.id)
  }
  // Money moved today (UTC); a range of three days holds it whatever the clock.
  const today = localDate(new Date().toISOString(), 'UTC')
  const range = { tz: 'UTC', from: addDays(today, -1), to: addDays(today, 1) }
  const { entries } = await ledger(app, shop.shopId)
  const sum = (kind: string, productId?: string) => entries
    .filter((e) => e.kind === kind && (productId === undefined || productOf.get(e.orderId) === productId))
    .reduce((total, e) => total + kopecks(e.amount), 0)

  t.ok(sum('debit') > 0, 'the ledger has debits')
  for (const groupBy of ['day', 'week', 'month', 'product']) {
    const answer = await salesData(app, shop, { ...range, groupBy })
    t.equal(kopecks(answer.totals.credited), sum('credit') - sum('debit'), `${groupBy}: credited = credits − debits`)
    t.equal(kopecks(answer.totals.refunded), sum('refund'), `${groupBy}: refunded = the ledger's refunds`)
    t.equal(answer.totals.orders, 24)
    t.same(answer.totals, summed(answer.rows))
  }
  const byProduct = await salesData(app, shop, { ...range, groupBy: 'product' })
  for (const row of byProduct.rows) {
    const credited = sum('credit', row.productId!) - sum('debit', row.productId!)
    t.equal(kopecks(row.credited), credited, `${row.productTitle}: credited`)
    t.equal(kopecks(row.refunded), sum('refund', row.productId!), `${row.productTitle}: refunded`)
  }

  // Over the range holding all of it, credited is what the balance says.
  const { balance } = await ledger(app, shop.shopId)
  const all = await salesData(app, shop, range)
  t.equal(kopecks(all.totals.credited), kopecks(balance), 'credited = the balance')
})
