// The portal's Stock pages as the seller's workplace (docs/portal.md): items told apart
// (position and upload time beside the preview), found by their preview or a whole
// code, 50 a page by a cursor, all of a page selected for removal (the confirmation's
// count in plural forms), the defective count, the low-stock mark, the orders waiting
// for codes, and the orders an upload or turning automatic delivery on delivered,
// named and linked.
import t from 'tap'
import { build, createShop, type App } from '../helper.js'
import { enterPortal, form, type PortalSession } from '../fixtures/portal.js'
import { buy } from '../fixtures/orders.js'
import { claimAction, openedClaim } from '../fixtures/claims.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'

const get = (app: App, session: PortalSession, url: string) =>
  app.inject({ method: 'GET', url, headers: { cookie: session.cookie } })
const post = (app: App, session: PortalSession, url: string, fields: Record<string, string | string[]>) =>
  app.inject({ method: 'POST', url, ...form(fields), headers: { ...form({}).headers, ...session.headers } })

/** The item rows of a product page: position, preview, checked. */
function rowsOf (html: string) {
  return [...html.matchAll(/<tr>\s*(?:<td>(<input type="checkbox" name="ids" value="([0-9a-f-]{36})"[^>]*>)<\/td>)?\s*<td data-label="No\.">No\. (\d+)<\/td>\s*<td data-label="Code"><code>([^<]*)<\/code>/g)]
    .map((m) => ({ id: m[2], checked: / checked/.test(m[1] ?? ''), position: Number(m[3]), preview: m[4] }))
}
/** The page's link to older items, as the browser follows it. */
const olderOf = (html: string) => /<a href="([^"]+)" rel="next">Older<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, '&')

/** A multipart upload of pasted codes. */
function upload (values: string) {
  const boundary = '----stock-test-boundary'
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `--${boundary}\r\ncontent-disposition: form-data; name="values"\r\n\r\n${values}\r\n--${boundary}--\r\n`
  }
}

t.test('items: positions and upload times, 50 a page across three pages by the cursor', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const values = Array.from({ length: 120 }, (_, i) => `KAV-${String(i + 1).padStart(6, '0')}-SECRET`)
  await addValues(app, shop, product.id, values)
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })

  const seen: number[] = []
  let url: string | undefined = `/portal/stock/${product.id}`
  const pages: number[] = []
  while (url !== undefined) {
    const page = await get(app, session, url)
    t.equal(page.statusCode, 200, url)
    t.notMatch(page.body, /SECRET/, 'previews only')
    const rows = rowsOf(page.body)
    pages.push(rows.length)
    seen.push(...rows.map((r) => r.position))
    t.ok(rows.every((r) => r.preview === 'KAV-…'), 'every preview reads the same: the position tells them apart')
    t.match(page.body, /<td data-label="Added"><time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">/, 'the upload time')
    url = olderOf(page.body)
    if (url !== undefined) t.match(url, /^\/portal\/stock\/[0-9a-f-]{36}\?after=\d+#items$/)
  }
  t.same(pages, [50, 50, 20], 'three pages: 50, 50 and the last 20')
  t.same(seen, Array.from({ length: 120 }, (_, i) => 120 - i), 'newest first, each item once, positions 120 … 1')
  const last = await get(app, session, `/portal/stock/${product.id}?after=21`)
  t.match(last.body, /href="\/portal\/stock\/[0-9a-f-]{36}#items">Back to the newest<\/a>/)

  for (const odd of ['?after=abc', '?after=0', '?status=bogus', `?after=${'9'.repeat(40)}`, '?select=everything']) {
    const page = await get(app, session, `/portal/stock/${product.id}${odd}`)
    t.equal(page.statusCode, 200, `${odd}: the first page, not an error`)
    t.equal(rowsOf(page.body)[0]?.position, 120, odd)
  }
})

t.test('search: by the start of the preview (any case) or a whole code; another shop\'s product is 404', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  await addValues(app, shop, product.id, ['ABCD-0001-XYZW', 'ABXY-0002-XYZW', 'ZZ%_-0003-XYZW', 'short', 'ABCD-0004-XYZW'])
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const find = async (q: string, status = 'available') =>
    rowsOf((await get(app, session, `/portal/stock/${product.id}?status=${status}&q=${encodeURIComponent(q)}`)).body)
      .map((r) => r.position)

  t.same(await find('ab'), [5, 2, 1], 'a prefix of the preview, any case')
  t.same(await find('ABCD'), [5, 1])
  t.same(await find('zz%'), [3], '% and _ are plain characters')
  t.same(await find('%'), [], 'not a wildcard')
  t.same(await find('ABXY-0002-XYZW'), [2], 'a whole code, by its keyed hash')
  t.same(await find('ABXY-0002-XYZ'), [], 'a whole code must be whole')
  t.same(await find('short'), [4], 'a code too short for a preview, found whole')
  t.same(await find(''), [5, 4, 3, 2, 1])
  const none = await get(app, session, `/portal/stock/${product.id}?q=QQ`)
  t.match(none.body, /No code of this status matches the search\./)
  t.match(none.body, /<input[^>]*name="q"[^>]*value="QQ"/, 'the search stays in its box')
  t.same(await find('ABCD', 'removed'), [], 'of the status asked')
  const long = await get(app, session, `/portal/stock/${product.id}?q=${'x'.repeat(20_000)}`)
  t.equal(long.statusCode, 200, 'an overlong search finds nothing, never an error')

  const other = await createShop(app, 'Other shop')
  const otherSession = await enterPortal(app, other.shopId, { locale: 'en' })
  t.equal((await get(app, otherSession, `/portal/stock/${product.id}?q=AB`)).statusCode, 404)
})

t.test('select all of a page, then a confirmation whose count is in plural forms', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  await addValues(app, shop, product.id, Array.from({ length: 71 }, (_, i) => `CODE-${i}-SECRET`))
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })

  const first = await get(app, session, `/portal/stock/${product.id}`)
  t.match(first.body, /<a href="\/portal\/stock\/[0-9a-f-]{36}\?select=all#items" id="select-all">Select all 50 codes on this page<\/a>/)
  t.ok(rowsOf(first.body).every((r) => !r.checked), 'nothing selected at first')
  const all = await get(app, session, `/portal/stock/${product.id}?select=all`)
  const rows = rowsOf(all.body)
  t.equal(rows.length, 50)
  t.ok(rows.every((r) => r.checked), 'every code of the page selected')
  t.match(all.body, /id="select-all">Clear the selection<\/a>/)
  const older = olderOf(all.body)!
  t.notMatch(older, /select=all/, 'the next page starts unselected')
  const second = await get(app, session, `${older.split('#')[0]}&select=all`)
  t.match(second.body, /Select all|Clear the selection/)
  t.equal(rowsOf(second.body).filter((r) => r.checked).length, 21, 'the second page: its 21 codes')

  const query = rows.map((r) => `ids=${r.id}`).join('&')
  t.match((await get(app, session, `/portal/stock/${product.id}/remove?${query}`)).body, /Remove 50 codes\?/)
  const one = await get(app, session, `/portal/stock/${product.id}/remove?ids=${rows[0].id}`)
  t.match(one.body, /Remove 1 code\?/)
  const removed = await post(app, session, `/portal/stock/${product.id}/remove`, { ids: rows.map((r) => r.id) })
  t.equal(removed.statusCode, 200)
  t.equal((removed.body.match(/CODE-\d+-SECRET/g) ?? []).length, 50, 'the 50 removed codes, shown once')
  const stock = (await stockCall(app, shop, product.id, 'GET', '')).json().data.stock
  t.match(stock, { available: 21, removed: 50 })
  const removedList = await get(app, session, `/portal/stock/${product.id}?status=removed`)
  t.equal(rowsOf(removedList.body).filter((r) => r.id !== undefined).length, 0, 'removed codes cannot be selected')
  t.equal((removedList.body.match(/<td data-label="No\.">/g) ?? []).length, 50, 'but are listed under their status')
  await app.inject({ method: 'POST', url: '/portal/language', ...form({ locale: 'ru' }), headers: { ...form({}).headers, ...session.headers } })
  const ru = async (n: number) =>
    (await get(app, session, `/portal/stock/${product.id}/remove?${rows.slice(0, n).map((r) => `ids=${r.id}`).join('&')}`)).body
  t.match(await ru(21), /Снять со склада 21 код\?/)
  t.match(await ru(22), /Снять со склада 22 кода\?/)
  t.match(await ru(25), /Снять со склада 25 кодов\?/)
  const ruPage = await get(app, session, `/portal/stock/${product.id}`)
  t.match(ruPage.body, /Выбрать 21 код на этой странице/)
})

t.test('the defective count and the low-stock mark, on the list and the product page', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'stock', lowStockThreshold: 3 })
  const plain = await stockProduct(app, shop, { autoDelivery: 'off', lowStockThreshold: 3 })
  await addValues(app, shop, product.id, ['KEY-A1', 'KEY-B2', 'KEY-C3', 'KEY-D4', 'KEY-E5'])
  await addValues(app, shop, plain.id, ['PLAIN-1'])
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const rowOf = (html: string, id: string) => new RegExp(`<tr id="stock-${id}">[\\s\\S]*?</tr>`).exec(html)?.[0] ?? ''

  let list = await get(app, session, '/portal/stock')
  t.notMatch(rowOf(list.body, product.id), /Low stock/, '5 available, threshold 3: not low')
  const order = await buy(app, product, { quantity: 1 })
  const claim = await openedClaim(app, order.id, { reason: 'not_working', text: 'fails', valueIndexes: [0] })
  t.equal((await claimAction(app, shop, claim.id, 'replace')).statusCode, 200)
  list = await get(app, session, '/portal/stock')
  const row = rowOf(list.body, product.id)
  t.match(row, /data-label="Available">3 <strong class="tag tag--red">Low stock<\/strong><\/td>/, '3 left: low')
  t.match(row, /data-label="Defective">1<\/td>/, 'the replaced code is defective')
  t.notMatch(rowOf(list.body, plain.id), /Low stock/, 'not delivered from stock: never marked low')
  const page = await get(app, session, `/portal/stock/${product.id}`)
  t.match(page.body, /<dt>Available<\/dt><dd>3 <strong class="tag tag--red">Low stock<\/strong><\/dd>/)
  t.match(page.body, /<dt>Defective<\/dt><dd>1<\/dd>/)
  const defective = rowsOf((await get(app, session, `/portal/stock/${product.id}?status=defective`)).body)
  t.same(defective.map((r) => r.position), [1], 'the defective code, listed under its status')
  const attention = await get(app, session, '/portal/attention')
  t.match(attention.body, /id="attention-low-stock"/, 'counted in Needs attention')
})

t.test('waiting orders: said on the pages; an upload or turning delivery on names the orders it delivered', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  const session = await enterPortal(app, shop.shopId, { locale: 'en' })
  const orders = [await buy(app, product), await buy(app, product), await buy(app, product, { quantity: 2 })]

  const list = await get(app, session, '/portal/stock')
  t.match(list.body, new RegExp(`data-label="Orders waiting"><a href="/portal/orders\\?status=paid&amp;product=${product.id}">3</a>`))
  let page = await get(app, session, `/portal/stock/${product.id}`)
  t.match(page.body, new RegExp(`<a href="/portal/orders\\?status=paid&amp;product=${product.id}">3 paid orders are waiting for codes</a>`))
  t.match(page.body, /Automatic delivery from stock is off/, 'what would deliver them')

  const body = upload('WAIT-0001\nWAIT-0002\nWAIT-0003')
  const kept = await app.inject({ method: 'POST', url: `/portal/stock/${product.id}/upload`, ...body, headers: { ...body.headers, ...session.headers } })
  t.equal(kept.statusCode, 201)
  t.notMatch(kept.body, /id="filled-orders"/, 'delivery off: nothing delivered')
  t.match(kept.body, /3 paid orders are waiting for codes/, 'and the result says they still wait')

  const saved = await post(app, session, `/portal/stock/${product.id}/settings`, {
    autoDelivery: 'stock', lowStockThreshold: '0', deactivateWhenEmpty: 'false', optionFieldId: ''
  })
  t.equal(saved.statusCode, 200)
  t.match(saved.body, /The stock settings are saved\./)
  t.match(saved.body, /Delivered from stock to 2 waiting orders:/, 'not silent: how many')
  for (const order of orders.slice(0, 2)) {
    t.match(saved.body, new RegExp(`<a href="/portal/orders/${order.id}">Order ${order.id.slice(0, 8)}</a>`), 'each named, linked')
  }
  t.notMatch(saved.body, new RegExp(orders[2].id), 'the order of 2 codes found 1 left: not delivered')
  t.match(saved.body, /1 paid order is waiting for codes/)
  t.match(saved.body, /Upload codes to deliver them/)

  const more = upload('WAIT-0004')
  const filled = await app.inject({ method: 'POST', url: `/portal/stock/${product.id}/upload`, ...more, headers: { ...more.headers, ...session.headers } })
  t.equal(filled.statusCode, 201)
  t.match(filled.body, /<dt>Waiting orders delivered<\/dt><dd>1<\/dd>/)
  t.match(filled.body, /Delivered from stock to 1 waiting order:/)
  t.match(filled.body, new RegExp(`<a href="/portal/orders/${orders[2].id}">Order ${orders[2].id.slice(0, 8)}</a>`))
  t.notMatch(filled.body, /id="waiting-orders"/, 'none waits any more')
  page = await get(app, session, `/portal/stock/${product.id}?status=delivered`)
  t.match(page.body, new RegExp(`<a href="/portal/orders/${orders[2].id}"><code>${orders[2].id.slice(0, 8)}</code></a>`),
    'a delivered code links to its order')
  t.notMatch(page.body, /WAIT-000/)

  const v1 = await stockCall(app, shop, product.id, 'POST', '/items', { values: ['WAIT-0005'] })
  t.same(Object.keys(v1.json().data).sort(), ['added', 'duplicates', 'filledOrders', 'stock'], '/v1 answers as before')
  await post(app, session, `/portal/stock/${product.id}/settings`, {
    autoDelivery: 'off', lowStockThreshold: '0', deactivateWhenEmpty: 'false', optionFieldId: ''
  })
  const ru = await enterPortal(app, shop.shopId, { locale: 'ru' })
  await buy(app, product)
  const ruSaved = await post(app, ru, `/portal/stock/${product.id}/settings`, {
    autoDelivery: 'stock', lowStockThreshold: '0', deactivateWhenEmpty: 'false', optionFieldId: ''
  })
  t.match(ruSaved.body, /Со склада выдан 1 ожидавший заказ:/)
})
