// The Sales page's ranges and chart (docs/portal.md "Sales"): the presets (last 7
// days, last week, this month, last month) as links to their ranges, a week or month
// the range cuts marked partial with the days it covers, and the chart's axes (money
// on the left, the periods' dates under the bars), in both languages.
import t from 'tap'
import { confirm, orderIn } from '../fixtures/orders.js'
import { enterPortal } from '../fixtures/portal.js'
import { createProduct, emailField } from '../fixtures/products.js'
import { build, createShop } from '../helper.js'

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const unescape = (href: string) => href.replaceAll('&amp;', '&')

t.test('Sales: presets, partial periods, the chart\'s axes', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop, { title: 'Card', price: 250, fields: [emailField] })
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  t.equal((await confirm(app, order.id)).statusCode, 200)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })

  // A week view whose range starts on a Friday and ends on a Saturday: its first and last weeks are cut.
  const weeks = await page('/portal/sales?from=2026-10-30&to=2026-11-28&groupBy=week&tz=UTC')
  t.equal(weeks.statusCode, 200)
  t.match(weeks.body, /<time datetime="2026-10-26">Week of 26 Oct 2026 \(partial: 30 Oct 2026 – 1 Nov 2026\)<\/time>/)
  t.match(weeks.body, /<time datetime="2026-11-02">Week of 2 Nov 2026<\/time>/, 'a whole week is not marked')
  t.match(weeks.body, /<time datetime="2026-11-23">Week of 23 Nov 2026 \(partial: 23 Nov 2026 – 28 Nov 2026\)<\/time>/)
  t.match(weeks.body, /id="sales-partial">A week or month marked partial is cut by the range/)
  const months = await page('/portal/sales?from=2026-09-01&to=2026-10-31&groupBy=month&tz=UTC')
  t.match(months.body, /<time datetime="2026-09-01">September 2026<\/time>/)
  t.notMatch(months.body, /partial/, 'whole months: nothing is marked')
  const cutMonth = await page('/portal/sales?from=2026-09-15&to=2026-10-31&groupBy=month&tz=UTC')
  t.match(cutMonth.body, /September 2026 \(partial: 15 Sept 2026 – 30 Sept 2026\)/)
  t.notMatch((await page('/portal/sales?from=2026-10-30&to=2026-11-28&tz=UTC')).body, /partial/, 'days are whole')

  // The presets, from today in the page's zone (UTC here).
  const now = Date.now()
  const today = day(now)
  const date = new Date(now)
  const monthStart = day(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1))
  const lastMonthStart = day(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1))
  const lastMonthEnd = day(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 0))
  const monday = now - ((date.getUTCDay() + 6) % 7) * 86_400_000
  const fresh = await page('/portal/sales?tz=UTC')
  const nav = /<nav class="presets" aria-label="Quick ranges">([\s\S]*?)<\/nav>/.exec(fresh.body)![1]
  const links = Object.fromEntries([...nav.matchAll(/<a href="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map((m) => [m[2], unescape(m[1])]))
  t.same(Object.keys(links), ['Last 7 days', 'Last week', 'This month', 'Last month'])
  t.equal(links['Last 7 days'], `/portal/sales?from=${day(now - 6 * 86_400_000)}&to=${today}&groupBy=day&tz=UTC`)
  t.equal(links['Last week'],
    `/portal/sales?from=${day(monday - 7 * 86_400_000)}&to=${day(monday - 86_400_000)}&groupBy=day&tz=UTC`)
  t.equal(links['This month'], `/portal/sales?from=${monthStart}&to=${today}&groupBy=day&tz=UTC`)
  t.equal(links['Last month'], `/portal/sales?from=${lastMonthStart}&to=${lastMonthEnd}&groupBy=day&tz=UTC`)
  const lastWeek = await page(links['Last week'])
  t.equal(lastWeek.statusCode, 200)
  t.match(lastWeek.body, /aria-current="true">Last week<\/a>/, 'the preset shown is marked')
  t.equal(lastWeek.body.match(/<th scope="row"><time/g)?.length, 7)

  // The chart, drawn wide and narrow (a phone's: its labels are not scaled down): money at zero, half and the
  // highest on the left, at most 8 dates (4 on the narrow one) under 30 bars.
  const drawings = fresh.body.split('<svg ').slice(1)
  t.same(drawings.map((svg) => /chart__svg--(\w+)/.exec(svg)?.[1]), ['wide', 'narrow'])
  for (const [i, svg] of drawings.entries()) {
    t.equal(svg.match(/class="chart__bar"/g)?.length, 30)
    t.same([...svg.matchAll(/class="chart__label chart__label--money">([^<]+)</g)].map((m) => m[1]),
      ['0.00 ₽', '125.00 ₽', '250.00 ₽'])
    const dates = [...svg.matchAll(/class="chart__label chart__label--date">([^<]+)</g)].map((m) => m[1])
    const most = i === 0 ? 8 : 4
    t.ok(dates.length >= most - 2 && dates.length <= most, `dates under the bars: ${dates.join(', ')}`)
    t.match(dates[0], /^\d{1,2} [A-Z][a-z]{2,3}$/)
  }

  const ru = await enterPortal(app, shop.shopId)
  const russian = await app.inject({
    method: 'GET', url: '/portal/sales?from=2026-10-30&to=2026-11-28&groupBy=week&tz=UTC', headers: { cookie: ru.cookie }
  })
  t.match(russian.body, /\(неполный: 30 окт\. 2026 г\. – 1 нояб\. 2026 г\.\)/)
  t.match(russian.body, /<nav class="presets" aria-label="Быстрый выбор">[\s\S]*Последние 7 дней/)
})
