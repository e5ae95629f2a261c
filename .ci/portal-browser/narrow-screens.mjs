// The portal's browser check (.ci/portal-browser.mjs), phone width: long names put in
// (a 200-character key name, long endpoint addresses, a long product name, a long
// chat message and claim text, stock codes over more than a page), then every page
// the portal links to, found by following its links from Needs attention, at 390 px
// in English and in Russian: the page scrolls no wider than the screen
// (document.documentElement.scrollWidth <= 390), axe-core on each (inspect). The
// Orders list, an order with its chat, Needs attention and a product's stock are also
// shown at desktop width: with --docs these pages become docs/portal/*.png. The pages
// no link leads to (behind a form: a new key's and a rotated secret's page shown once,
// the stock upload's result, the removal's confirmation and result) and the
// confirmations (a claim's Replace / Refund / Reject, an order's cancel, deletions) are
// opened too, at 390 px in both languages, by submitting their forms (postedPages).
import { check } from './session.mjs'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1100, height: 800 }
/** The pages followed at most: every kind of page is well within it. */
const MAX_PAGES = 80
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

const longWord = (prefix, length) => (prefix + 'x'.repeat(length)).slice(0, length)
const KEY_NAME = longWord('Order-bot-for-the-marketplace-integration-', 200)
const PRODUCT_TITLE = 'Подарочная карта Steam на 5000 рублей для России и СНГ, ' +
  'выдача_кода_сразу_после_оплаты_без_пробелов'
const CHAT_TEXT = 'Здравствуйте! Код не активируется, пишет: ' + longWord('ERROR_CODE_ACTIVATION_FAILED_', 160) +
  ' — что делать? https://store.steampowered.com/account/registerkey?key=' + 'ABCDE-'.repeat(20)

/** A page's kind: its path with ids as `:id` and the names of its query (the order of a list, a filter). */
function kindOf (url) {
  const { pathname, searchParams } = new URL(url)
  return `${pathname.replace(UUID, ':id')}?${[...new Set(searchParams.keys())].sort().join('&')}`
}

/** The data with long names, through the API as a seller's bot and the marketplace would send it. */
async function longData (s) {
  const { base, api, operator, seller, hooks } = s
  const send = async (method, path, headers, body) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()).data
  }
  const longPath = '/hooks/' + 'marketplace-orders-and-claims-receiver/'.repeat(6) + '?token=' + 'f'.repeat(120)
  await send('POST', '/v1/webhook-endpoints', seller, {
    url: hooks.url.replace('/hooks', longPath), description: longWord('Webhook-receiver-of-the-shop-', 180)
  })
  await send('PUT', '/v1/delivery-endpoint', seller, { url: hooks.url.replace('/hooks', longPath + '&delivery=1') })
  const [demo] = (await api('GET', '/v1/products', seller)).products
  const full = (await api('GET', `/v1/products/${demo.id}`, seller)).product
  const { product } = await send('POST', '/v1/products', seller, {
    categoryId: full.categoryId,
    title: PRODUCT_TITLE,
    description: 'A product with a long name.',
    isActive: true,
    external: true,
    currencyRateId: '',
    price: 5000,
    imageId: '',
    employeeReward: { type: 'percent', value: 0 },
    fields: [],
    filters: []
  })
  await send('PATCH', `/v1/products/${product.id}/stock`, seller, { autoDelivery: 'stock', lowStockThreshold: 100 })
  const codes = Array.from({ length: 60 }, (_, i) => `${longWord('GIFTCARD-', 90)}-${String(i).padStart(4, '0')}`)
  await send('POST', `/v1/products/${product.id}/stock/items`, seller, { values: codes })
  const purchase = { productId: product.id, quantity: 1, fieldValues: [] }
  const { order } = await send('POST', '/internal/v1/orders', operator, purchase)
  const claim = { reason: 'not_working', text: CHAT_TEXT.slice(0, 300), valueIndexes: [0] }
  const opened = await send('POST', `/internal/v1/orders/${order.id}/claims`, operator, claim)
  await send('POST', `/internal/v1/orders/${order.id}/messages`, operator, { text: CHAT_TEXT })
  // An order waiting: the demo product delivers from no stock.
  const waiting = await send('POST', '/internal/v1/orders', operator,
    { productId: demo.id, quantity: 1, fieldValues: [] })
  const endpoints = (await api('GET', '/v1/webhook-endpoints', seller)).endpoints
  const endpoint = endpoints.find((e) => e.url.includes(longPath))
  return { product, order, claim: opened.claim, waiting: waiting.order, endpoint }
}

/**
 * Every page reached by following the portal's links from Needs attention, one of each
 * kind, at the current width and language: no sideways scrolling, axe-core clean; each
 * screenshot named after its kind (`en-390-portal-orders-id`).
 */
async function everyPage (s, prefix) {
  const { page, base, inspect } = s
  const queue = [`${base}/portal/attention`]
  const kinds = new Set()
  let visited = 0
  while (queue.length > 0 && visited < MAX_PAGES) {
    const url = queue.shift()
    const kind = kindOf(url)
    if (kinds.has(kind)) continue
    kinds.add(kind)
    const res = await page.goto(url)
    if (!res || res.status() >= 400) {
      check(false, `${prefix}: ${url} opens`, String(res?.status()))
      continue
    }
    visited++
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    check(width <= PHONE.width, `${prefix} ${kind}: no sideways scrolling at 390 px`, `scrollWidth ${width}`)
    await inspect(`${prefix}-390-${kind.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`)
    const links = await page.evaluate(() => [...document.querySelectorAll('main a[href], nav a[href]')]
      .filter((a) => !a.hasAttribute('download')).map((a) => a.href))
    for (const link of links) {
      const next = new URL(link)
      next.hash = ''
      if (next.origin === base && next.pathname.startsWith('/portal/') && !next.pathname.startsWith('/portal/assets') &&
        !kinds.has(kindOf(next.href))) queue.push(next.href)
    }
  }
  return kinds
}

/**
 * The pages behind a form and the confirmations, at 390 px in the session's language (`prefix`):
 * no sideways scrolling, axe-core clean. Forms are found by their action, in either language.
 */
async function postedPages (s, prefix, data) {
  const { page, base, inspect } = s
  const { product, claim, waiting, endpoint } = data
  const fits = async (name) => {
    await page.waitForLoadState('load')
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    check(width <= PHONE.width, `${prefix}-390 ${name}: no sideways scrolling`, `scrollWidth ${width}`)
    await inspect(`${prefix}-390-${name}`)
  }
  const open = async (name, path) => {
    const res = await page.goto(`${base}${path}`)
    check(res?.status() === 200, `${prefix}-390 ${name}: ${path} opens`, String(res?.status()))
    await fits(name)
  }
  /** Submits the main form posting to `action` and waits for the page it answers with. */
  const submit = async (name, action) => {
    const answered = page.waitForResponse((r) =>
      r.request().method() === 'POST' && new URL(r.url()).pathname === action)
    await page.locator(`main form[action="${action}"] button[type="submit"]`).first().click()
    check((await answered).status() < 400, `${prefix}-390 ${name}: the form is accepted`)
    await page.waitForLoadState('load')
    await page.waitForTimeout(200)
    await fits(name)
  }
  await page.goto(`${base}/portal/api-keys`)
  await page.locator('main form[action="/portal/api-keys"] [name="name"]').fill(KEY_NAME)
  await submit('posted-api-key-secret', '/portal/api-keys')
  for (const answer of ['replace', 'refund', 'reject']) {
    await open(`confirm-claim-${answer}`, `/portal/claims/${claim.id}/${answer}`)
  }
  await open('confirm-order-cancel', `/portal/orders/${waiting.id}/cancel`)
  await open('confirm-webhook-delete', `/portal/webhooks/${endpoint.id}/delete`)
  await open('confirm-webhook-rotate', `/portal/webhooks/${endpoint.id}/rotate`)
  await submit('posted-webhook-secret', `/portal/webhooks/${endpoint.id}/rotate`)
  await open('confirm-delivery-delete', '/portal/delivery-endpoint/delete')
  await open('confirm-delivery-rotate', '/portal/delivery-endpoint/rotate')
  await submit('posted-delivery-secret', '/portal/delivery-endpoint/rotate')
  await page.goto(`${base}/portal/stock/${product.id}/upload`)
  const codes = Array.from({ length: 3 }, (_, i) => `${longWord(`UPLOADED-${prefix}-`, 120)}-${i}`)
  await page.locator('main textarea[name="values"]').fill(codes.join('\n'))
  await submit('posted-stock-uploaded', `/portal/stock/${product.id}/upload`)
  await page.goto(`${base}/portal/stock/${product.id}`)
  await page.locator('main input[name="ids"]').first().check()
  await page.locator(`main form[action="/portal/stock/${product.id}/remove"] button[type="submit"]`).click()
  await page.waitForURL(/\/remove\?/)
  await fits('confirm-stock-remove')
  await submit('posted-stock-removed', `/portal/stock/${product.id}/remove`)
  // The Sales chart's labels on a phone: its narrow drawing, text at ≥ 11 px as shown (an SVG scales its text).
  await page.goto(`${base}/portal/sales`)
  const sizes = await page.evaluate(() => [...document.querySelectorAll('.chart__svg')]
    .filter((svg) => svg.getBoundingClientRect().width > 0)
    .flatMap((svg) => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width
      return [...svg.querySelectorAll('.chart__label')]
        .map((label) => parseFloat(globalThis.getComputedStyle(label).fontSize) * scale)
    }))
  check(sizes.length > 0 && Math.min(...sizes) >= 11, `${prefix}-390 Sales: the chart's labels read at 11 px or more`,
    `label sizes: ${sizes.map((size) => size.toFixed(1)).join(', ')}`)
  await fits('sales')
}

/** `s`: the open session, in English on Activity (session.mjs); leaves it so, at desktop width. */
export async function narrowScreens (s) {
  const { page, base, inspect, heading } = s
  const data = await longData(s)
  const { product, order } = data
  // The key with a 200-character name, made on its page as a seller makes one.
  await page.goto(`${base}/portal/api-keys`)
  await page.getByRole('textbox', { name: 'Key name' }).fill(KEY_NAME)
  await page.getByRole('button', { name: 'Create key' }).click()
  await page.getByLabel('New secret').waitFor()

  const shown = [
    ['attention', '/portal/attention'],
    ['orders', '/portal/orders', 'main table'],
    ['order-chat', `/portal/orders/${order.id}`, '#chat'],
    ['stock-items', `/portal/stock/${product.id}`, '#items', PHONE]
  ]
  for (const [locale, button] of [['en', null], ['ru', 'Русский']]) {
    if (button) {
      await page.setViewportSize(DESKTOP)
      await page.getByRole('button', { name: button }).click()
      // The switch is done when the page offers the way back.
      await page.getByRole('button', { name: 'English' }).waitFor()
    }
    // The pages docs/portal.md shows, with the long data (the links alone may reach other
    // orders and products first): at desktop width, then at 390 px.
    for (const [prefix, size] of [[locale, DESKTOP], [`${locale}-390`, PHONE]]) {
      await page.setViewportSize(size)
      for (const [name, url, part, onlyAt = size] of shown) {
        await page.goto(`${base}${url}`)
        const width = await page.evaluate(() => document.documentElement.scrollWidth)
        check(width <= size.width, `${prefix}-${name}: no sideways scrolling`, `scrollWidth ${width}`)
        // The screenshot shows the part the page is about (the list, the chat, the codes).
        if (part && onlyAt === size) await page.evaluate((at) => document.querySelector(at).scrollIntoView(), part)
        await inspect(`${prefix}-${name}`)
      }
    }
    await postedPages(s, locale, data)
    const kinds = await everyPage(s, locale)
    check(kinds.size >= 20, `${locale}: every kind of page followed at 390 px (${kinds.size})`, [...kinds].join('\n'))
  }
  await page.setViewportSize(DESKTOP)
  await page.goto(`${base}/portal/activity`)
  await page.getByRole('button', { name: 'English' }).click()
  await heading('Activity')
}
