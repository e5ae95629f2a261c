// The session's time zone (docs/portal.md): every time on the pages is shown in it
// with the zone named, Europe/Moscow until the seller picks another beside the
// language; an unknown zone is refused in the page's language and changes nothing.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { enterPortal, form } from '../fixtures/portal.js'

t.test('times in the session\'s zone: Moscow by default, another once chosen, a bad one refused', async (t) => {
  const app = await build(t)
  const { shopId } = await createShop(app, 'Moon Keys')
  const session = await enterPortal(app, shopId, { locale: 'ru' })
  const page = (url: string) => app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
  const change = (fields: Record<string, string>) => app.inject({
    method: 'POST', url: '/portal/time-zone', ...form(fields), headers: { ...form({}).headers, ...session.headers }
  })
  const activityTime = (html: string) => /<time datetime="[^"]+">([^<]+)<\/time>/.exec(html)?.[1]

  const first = await page('/portal/activity')
  const link =
    /<a class="header__zone" href="\/portal\/time-zone\?return=%2Fportal%2Factivity">Время: Europe\/Moscow<\/a>/
  t.match(first.body, link, 'the zone named in the header, beside the language')
  t.match(activityTime(first.body), /GMT\+3$/, 'Moscow by default, the zone named')

  const form1 = await page('/portal/time-zone?return=/portal/activity')
  t.equal(form1.statusCode, 200)
  t.match(form1.body, /<input class="input" id="tz" name="tz" type="text" value="Europe\/Moscow"/)

  const bad = await change({ tz: 'Mars/Olympus', return: '/portal/activity' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /Часовой пояс: выберите часовой пояс из списка, например Europe\/Moscow\./)
  t.match((await page('/portal/activity')).body, /Время: Europe\/Moscow/, 'nothing changed')

  const changed = await change({ tz: 'Asia/Yekaterinburg', return: '/portal/activity' })
  t.equal(changed.statusCode, 303)
  t.equal(changed.headers.location, '/portal/activity')
  const after = await page('/portal/activity')
  t.match(after.body, /Время: Asia\/Yekaterinburg/)
  t.match(activityTime(after.body), /GMT\+5$/, 'the same time, now in Yekaterinburg')
  const footer = /<footer class="footer">([^<]*)<\/footer>/.exec(after.body)![1]
  t.match(footer, /GMT\+5.+GMT\+5$/, 'the session\'s end too')
  const sales = await page('/portal/sales')
  t.match(sales.body, /value="Asia\/Yekaterinburg"/, 'Sales counts days in the session\'s zone unless asked otherwise')

  const readOnly = await enterPortal(app, shopId, { locale: 'en', readOnly: true })
  const allowed = await app.inject({
    method: 'POST',
    url: '/portal/time-zone',
    ...form({ tz: 'UTC' }),
    headers: { ...form({}).headers, ...readOnly.headers }
  })
  t.equal(allowed.statusCode, 303, 'a read-only session may change its own zone')
})
