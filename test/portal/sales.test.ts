// The portal's Sales page (docs/portal.md): the figures of GET /v1/stats/sales as
// a chart and a table, the API's refusals said next to their fields, both languages.
import t from 'tap'
import { confirm, orderIn } from '../fixtures/orders.js'
import { enterPortal } from '../fixtures/portal.js'
import { createProduct, emailField } from '../fixtures/products.js'
import { salesData } from '../fixtures/stats.js'
import { build, createShop } from '../helper.js'

t.test('Sales: the API\'s figures as a chart and a table, by period or product, in the chosen zone', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  for (const [title, price] of [['Dime', 0.1], ['Two dimes', 0.2]] as const) {
    const product = await createProduct(app, shop, { title, price, fields: [emailField] })
    const order = await orderIn(app, shop, product, 'awaiting_confirmation')
    t.equal((await confirm(app, order.id)).statusCode, 200)
  }
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })

  const byDay = await page('/portal/sales?tz=UTC')
  t.equal(byDay.statusCode, 200, byDay.body)
  t.match(byDay.body, /<h1>Sales<\/h1>/)
  t.match(byDay.body, /<a href="\/portal\/sales" aria-current="page">Sales<\/a>/)
  const api = await salesData(app, shop, { tz: 'UTC' })
  t.match(byDay.body, `${api.from} to ${api.to}, UTC`)
  // 30 days, each a row of the table and a bar of the chart.
  t.equal(byDay.body.match(/<th scope="row"><time datetime="/g)?.length, 30)
  t.equal(byDay.body.match(/class="chart__bar"/g)?.length, 60, 'each bar in both drawings, wide and narrow')
  const totals = /<tfoot>([\s\S]*?)<\/tfoot>/.exec(byDay.body)![1]
  const cells = [...totals.matchAll(/<td class="number">([^<]*)<\/td>/g)].map((m) => m[1])
  t.same(cells, ['2', '2', '0.30 ₽', '0.00 ₽', '0.30 ₽'])
  t.notMatch(byDay.body, /data-browser-zone/, 'a chosen zone stays')

  const byProduct = await page('/portal/sales?tz=UTC&groupBy=product')
  t.equal(byProduct.statusCode, 200)
  t.match(byProduct.body, /<th scope="row">Two dimes<\/th>[\s\S]*<th scope="row">Dime<\/th>/, 'gross descending')
  t.match(byProduct.body, /<option value="product" selected>/)

  // Without a zone: Moscow, and the page offers the browser's own zone (portal.js).
  const fresh = await page('/portal/sales')
  t.match(fresh.body, /data-browser-zone/)
  t.match(fresh.body, /id="tz" name="tz"[^>]*value="Europe\/Moscow"/)
  // Empty fields take their defaults, as absent parameters do.
  const empty = await page('/portal/sales?from=&to=&groupBy=week&tz=')
  t.equal(empty.statusCode, 200)
  t.match(empty.body, /Week of /)
})

t.test('Sales: a refused range or zone is said next to its field, in the page\'s language', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  for (const locale of ['en', 'ru']) {
    const session = await enterPortal(app, shop.shopId, { locale })
    const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
    const reversed = await page('/portal/sales?from=2026-03-02&to=2026-03-01&tz=UTC')
    t.equal(reversed.statusCode, 400)
    t.match(reversed.body, /class="error-summary"/)
    t.match(reversed.body, /<a href="#from">/)
    t.match(reversed.body, /id="from-error"/)
    const after = locale === 'en' ? 'The start is after the end' : 'Начало периода не может быть позже конца.'
    t.match(reversed.body, after)
    t.notMatch(reversed.body, /<table>/, 'no figures for a refused range')
    const zone = await page('/portal/sales?tz=Mars%2FOlympus')
    t.equal(zone.statusCode, 400)
    t.match(zone.body, /<a href="#tz">/)
    t.match(zone.body, locale === 'en' ? 'Choose a time zone from the list' : 'Выберите часовой пояс из списка')
    t.match(zone.body, /value="Mars\/Olympus"/, 'the field keeps what was typed')
    const grouping = await page('/portal/sales?groupBy=year')
    t.equal(grouping.statusCode, 400)
    t.match(grouping.body, /<a href="#group-by">/)
  }
  const noSession = await app.inject({ method: 'GET', url: '/portal/sales' })
  t.equal(noSession.statusCode, 401)
})
