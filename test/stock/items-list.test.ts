// The stock items list (docs/stock.md) longer than a page and than 9 items,
// where text order and number order part: newest first item by item against the
// order of the uploads, and paged with `after` to the end, every item exactly
// once, whatever the limit and the filters.
import t from 'tap'
import { buy } from '../fixtures/orders.js'
import { addValues, stockCall, stockKey, stockProduct } from '../fixtures/stock.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

interface ListedItem { id: string, optionId: string | null, status: string, preview: string }

/** Every page of the list from the start, following nextCursor until null. */
async function pageThrough (app: App, shop: ShopFixture, productId: string, query: string, limit: number) {
  const items: ListedItem[] = []
  let after: string | null = null
  for (let pages = 0; ; pages++) {
    if (pages > 2000) throw new Error('the cursor never ends')
    const url = `/items?limit=${limit}${query}${after === null ? '' : `&after=${after}`}`
    const res = await stockCall(app, shop, productId, 'GET', url)
    if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode} ${res.body}`)
    const page = res.json().data as { items: ListedItem[], nextCursor: string | null }
    if (page.items.length > limit) throw new Error(`a page of ${page.items.length} items for limit ${limit}`)
    items.push(...page.items)
    if (page.nextCursor === null) return items
    after = page.nextCursor
  }
}

/** A value whose 4-character preview is its number in the upload order. */
const codeNumbered = (n: number) => `${String(n).padStart(4, '0')}-CODE-${n}`
const numberOf = (item: ListedItem) => Number(item.preview.slice(0, 4))

t.test('more than 100 items from several uploads: newest first, each page after the last, every item once', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey(), RATE_LIMIT_MAX: 100_000 })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, {}, {
    fields: [{ type: 'select', label: 'Region', required: true, multiple: false, options: [{ label: 'EU', price: 0 }, { label: 'US', price: 0 }] }]
  })
  const field = product.fields[0]
  const [eu, us] = field.options.map((o: { id: string }) => o.id)
  t.equal((await stockCall(app, shop, product.id, 'PATCH', '', { optionFieldId: field.id, autoDelivery: 'stock' })).statusCode, 200)

  // Uploads of 20, 20, 20 (EU), 25, 25 (US), then 9 single values, alternating: 119 items.
  const uploaded: Array<{ n: number, optionId: string }> = []
  let next = 1
  const upload = async (count: number, optionId: string) => {
    const values = Array.from({ length: count }, (_, i) => codeNumbered(next + i))
    t.equal((await addValues(app, shop, product.id, values, optionId)).added, count)
    for (let i = 0; i < count; i++) uploaded.push({ n: next + i, optionId })
    next += count
  }
  for (const [count, optionId] of [[20, eu], [20, eu], [20, eu], [25, us], [25, us]] as const) await upload(count, optionId)
  for (let i = 0; i < 9; i++) await upload(1, i % 2 === 0 ? eu : us)

  // Three EU purchases take the three oldest EU items; five items are taken back out.
  const buyEu = () => buy(app, product, { fieldValues: [{ fieldId: field.id, value: eu }] })
  for (let i = 0; i < 3; i++) t.equal((await buyEu()).status, 'awaiting_confirmation')
  const idOf = new Map((await pageThrough(app, shop, product.id, '', 100)).map((i) => [numberOf(i), i.id]))
  const removedNumbers = [119, 100, 61, 10, 4]
  const remove = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: removedNumbers.map((n) => idOf.get(n)) })
  t.equal(remove.statusCode, 200, remove.body)

  const statusOf = (n: number) => removedNumbers.includes(n) ? 'removed' : [1, 2, 3].includes(n) ? 'delivered' : 'available'
  const expected = uploaded.map((u) => ({ ...u, status: statusOf(u.n) })).reverse()
  const filters: Array<[string, (e: typeof expected[number]) => boolean]> = [
    ['', () => true],
    [`&optionId=${eu}`, (e) => e.optionId === eu],
    [`&optionId=${us}`, (e) => e.optionId === us],
    ['&status=available', (e) => e.status === 'available'],
    ['&status=delivered', (e) => e.status === 'delivered'],
    ['&status=removed', (e) => e.status === 'removed'],
    [`&status=available&optionId=${us}`, (e) => e.status === 'available' && e.optionId === us]
  ]
  for (const [query, keep] of filters) {
    const want = expected.filter(keep)
    // limit=1 (a page per item) on the whole list and on the narrowest filter; 7 and 50 on every filter.
    const limits = query === '' ? [1, 7, 50, 100] : query.includes('&status=available&') ? [1, 7, 50] : [7, 50]
    for (const limit of limits) {
      const items = await pageThrough(app, shop, product.id, query, limit)
      const what = `limit ${limit}${query.replaceAll(eu, 'EU').replaceAll(us, 'US')}`
      t.same(items.map(numberOf), want.map((e) => e.n), `${what}: newest first, item by item, to the end`)
      t.same(items.map((i) => [i.status, i.optionId]), want.map((e) => [e.status, e.optionId]), `${what}: statuses and options`)
      t.equal(new Set(items.map((i) => i.id)).size, items.length, `${what}: no item twice`)
    }
  }

  const first = (await stockCall(app, shop, product.id, 'GET', '/items?limit=100')).json().data
  t.same(first.items.map(numberOf), expected.slice(0, 100).map((e) => e.n), 'limit=100: the 100 newest, newest first')
})

t.test('after 10 000 codes and one more, limit=1 gives the one more; the next page the 10 000th', async (t) => {
  const app = await build(t, { VALUES_ENCRYPTION_KEY: stockKey(), RATE_LIMIT_MAX: 100_000 })
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'off' })
  await addValues(app, shop, product.id, Array.from({ length: 10_000 }, (_, i) => `BULK-${i + 1}-XXXX`))
  await addValues(app, shop, product.id, ['LAST-ONE-ADDED'])
  const newest = (await stockCall(app, shop, product.id, 'GET', '/items?limit=1')).json().data
  t.same(newest.items.map((i: ListedItem) => i.preview), ['LAST…'])
  const next = (await stockCall(app, shop, product.id, 'GET', `/items?limit=2&after=${newest.nextCursor}`)).json().data
  t.same(next.items.map((i: ListedItem) => i.preview), ['BULK…', 'BULK…'])
  const removed = await stockCall(app, shop, product.id, 'POST', '/items/remove', { ids: next.items.map((i: ListedItem) => i.id) })
  t.same(removed.json().data.items.map((i: { value: string }) => i.value), ['BULK-10000-XXXX', 'BULK-9999-XXXX'], 'the 10 000th, then the 9 999th')
})
