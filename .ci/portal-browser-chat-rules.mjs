// CI: the portal's Auto-replies page in a real browser (docs/chat-rules.md,
// docs/portal.md). Headless Chromium opens the portal link the embedded default's
// first start printed; the demo shop's two rules are listed; then, in Russian and
// in English, a rule is added, previewed against the shop's recent order, disabled,
// and deleted after the confirmation, with the keyboard and the page's labels.
// Then, with rules of long names and many keywords present, at a phone's 390 CSS px
// the list, a rule's form and its preview scroll no wider than the screen.
// Every page is checked with axe-core (no WCAG 2 A / AA violation) and screenshotted
// into a temporary directory (its path is printed); no console error, no CSP violation.
//   node .ci/portal-browser-chat-rules.mjs          (CHROMIUM names another binary)
//   node .ci/portal-browser-chat-rules.mjs --docs   also writes docs/portal/*.png (DOCS below)
// Ends with `portal browser chat rules: N passed, N failed`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { root, startInstance } from './live-instance.mjs'

const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']
const TEXT = {
  ru: {
    nav: 'Автоответы',
    add: 'Добавить правило',
    name: 'Название правила',
    trigger: 'Когда отвечать',
    keywords: 'Ключевые слова',
    text: 'Текст сообщения',
    preview: 'Предпросмотр',
    save: 'Сохранить правило',
    disable: 'Выключить',
    disabled: 'Выключено',
    remove: 'Удалить',
    confirm: 'Подтвердить',
    keywordTrigger: 'Сообщение покупателя с ключевым словом'
  },
  en: {
    nav: 'Auto-replies',
    add: 'Add rule',
    name: 'Rule name',
    trigger: 'Trigger',
    keywords: 'Keywords',
    text: 'Message text',
    preview: 'Preview',
    save: 'Save rule',
    disable: 'Disable',
    disabled: 'Disabled',
    remove: 'Delete',
    confirm: 'Confirm',
    keywordTrigger: 'A buyer\'s message with a keyword'
  }
}

/** The screenshots docs/portal.md shows. */
const DOCS = new Set(['en-chat-rules', 'ru-chat-rule-preview', 'en-390-chat-rules', 'ru-390-chat-rule-preview'])
const writeDocs = process.argv.includes('--docs')
const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1100, height: 800 }
/** Rules that test the narrow layout: a name without a space, twenty keywords, some long. */
const LONG_RULES = [
  {
    name: 'Ответ_на_вопросы_о_доставке_кодов_активации_и_сроках_гарантии_для_всех_товаров_магазина',
    trigger: 'message.keyword',
    keywords: Array.from({ length: 20 }, (_, i) => i % 4 === 0 ? `гарантийный-срок-активации-ключа-${i}` : `!key${i}`),
    text: 'See {{productTitle}}'
  },
  {
    name: 'A rule with a long name that says what it answers: where is my code, how do I activate it, what now',
    trigger: 'order.delivered',
    text: 'Thank you for the order {{orderId}}'
  }
]
const LONG_TEXT = 'Your order {{orderId}} of {{productTitle}}: https://example.com/activation/' +
  'a-very-long-address-without-any-space-that-a-phone-must-wrap-somewhere-0123456789abcdef'

let passed = 0
let failed = 0
const check = (ok, what, detail = '') => {
  if (ok) passed++
  else failed++
  const more = !ok && detail ? `\n    ${String(detail).split('\n').join('\n    ')}` : ''
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}${more}`)
}

const shots = mkdtempSync(join(tmpdir(), 'seller-portal-chat-rules-'))
const profile = mkdtempSync(join(tmpdir(), 'seller-api-chromium-'))
const axeSource = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')
let instance
let context
let page
try {
  instance = await startInstance()
  const base = instance.baseUrl
  const link = instance.output().match(/seller portal: (\S+\/portal\/enter\?token=portal_link_[A-Za-z0-9_-]{43})/)?.[1]
  check(Boolean(link), 'the first start printed a seller portal link for the demo shop')
  // A buyer's order of the demo product, for the preview.
  const seller = { authorization: `Bearer ${instance.apiKey}` }
  const { data: { products } } = await (await fetch(`${base}/v1/products`, { headers: seller })).json()
  const bought = await fetch(`${base}/internal/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${instance.internalToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ productId: products[0].id, quantity: 1, fieldValues: [] })
  })
  const order = (await bought.json()).data.order
  check(bought.status === 201, 'a buyer\'s order of the demo product')

  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: flags,
    timeout: 60_000,
    viewport: DESKTOP
  })
  page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(20_000)
  const problems = []
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 400 /.test(message.text())) problems.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
  const axeViolations = []
  let pages = 0
  /** For docs/: the screen, or the page from the top of `from` to the bottom of `to` (selectors). */
  async function docsShot (name, [from, to] = []) {
    const path = join(root, 'docs', 'portal', `${name}.png`)
    if (!from) return page.screenshot({ path })
    const { top, bottom } = await page.evaluate(([from, to]) => ({
      top: document.querySelector(from).getBoundingClientRect().top + globalThis.scrollY - 15,
      bottom: document.querySelector(to).getBoundingClientRect().bottom + globalThis.scrollY + 15
    }), [from, to])
    const clip = { x: 0, y: Math.max(0, top), width: page.viewportSize().width, height: bottom - Math.max(0, top) }
    await page.screenshot({ path, fullPage: true, clip })
  }
  /** axe-core on the page and a full-page screenshot; `docs`: what docsShot takes. */
  async function inspect (name, docs) {
    await page.waitForLoadState('load')
    await page.evaluate(axeSource)
    const result = await page.evaluate(() => globalThis.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] }
    }))
    for (const v of result.violations) {
      const where = v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')
      axeViolations.push(`${name}: ${v.id} (${v.impact}): ${v.help}: ${where}`)
    }
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true })
    if (writeDocs && DOCS.has(name)) await docsShot(name, docs)
    pages++
  }
  const heading = (text) => page.getByRole('heading', { level: 1, name: text }).waitFor()
  /** At 390 px: the page as it is scrolls no wider than the screen. */
  async function fitsPhone (what) {
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    check(width <= PHONE.width, `${what}: no wider than the 390 px screen (scrollWidth ${width})`)
  }
  const longRules = []
  for (const body of LONG_RULES) {
    const res = await fetch(`${base}/v1/chat-rules`, {
      method: 'POST', headers: { ...seller, 'content-type': 'application/json' }, body: JSON.stringify(body)
    })
    if (res.status !== 201) throw new Error(`POST /v1/chat-rules: ${res.status} ${await res.text()}`)
    longRules.push((await res.json()).data.rule)
  }

  await page.goto(link)
  await page.getByRole('heading', { level: 1, name: 'Требует внимания' }).waitFor()
  for (const locale of ['ru', 'en']) {
    const t = TEXT[locale]
    if (locale === 'en') {
      await page.getByRole('button', { name: 'English' }).click()
      await page.locator('html[lang="en"]').waitFor()
    }
    await page.getByRole('navigation').getByRole('link', { name: t.nav, exact: true }).click()
    await heading(t.nav)
    const listed = await page.locator('tbody tr').count()
    check(listed >= 2, `${locale}: the demo shop's two rules are listed (${listed} rules)`)
    check((await page.getByRole('link', { name: 'Help', exact: true }).count()) === 1, `${locale}: the demo !help rule`)
    await inspect(`${locale}-chat-rules`)

    await page.getByRole('link', { name: t.add }).click()
    await page.getByRole('textbox', { name: t.name }).waitFor()
    const name = `Browser rule ${locale}`
    await page.getByRole('textbox', { name: t.name }).fill(name)
    await page.getByRole('combobox', { name: t.trigger }).selectOption('message.keyword')
    await page.getByRole('textbox', { name: t.keywords }).fill('!where\nгде')
    await page.getByRole('textbox', { name: t.text }).fill('Order {{orderId}}: {{amount}} RUB')
    const listedPlaceholder = await page.getByText('{{productTitle}}').count()
    check(listedPlaceholder === 1, `${locale}: the placeholders are listed beside the text`)
    await inspect(`${locale}-chat-rule-form`)
    await page.getByRole('button', { name: t.preview }).click()
    await page.locator('.preview__text').waitFor()
    const previewed = await page.locator('.preview__text').textContent()
    const expected = `Order ${order.id}: ${order.amount.toFixed(2)} RUB`
    check(previewed === expected, `${locale}: the preview renders the order`, previewed)
    await inspect(`${locale}-chat-rule-preview`, ['label[for="text"]', '.preview'])
    await page.getByRole('button', { name: t.save }).click()
    await heading(t.nav)
    const row = page.locator('tr', { has: page.getByRole('link', { name, exact: true }) })
    check((await row.count()) === 1, `${locale}: the rule is saved and listed`)
    check((await row.getByText(t.keywordTrigger).count()) === 1, `${locale}: its trigger in words`)

    await row.getByRole('button', { name: t.disable }).click()
    await page.locator('tr', { has: page.getByRole('link', { name, exact: true }) }).getByText(t.disabled).waitFor()
    check(true, `${locale}: the rule is disabled`)
    await inspect(`${locale}-chat-rule-disabled`)

    const again = page.locator('tr', { has: page.getByRole('link', { name, exact: true }) })
    await again.getByRole('button', { name: t.remove }).click()
    await page.getByRole('button', { name: t.confirm }).waitFor()
    await inspect(`${locale}-chat-rule-delete`)
    await page.getByRole('button', { name: t.confirm }).click()
    await heading(t.nav)
    const left = await page.getByRole('link', { name, exact: true }).count()
    check(left === 0, `${locale}: the rule is deleted after the confirmation`)

    await page.setViewportSize(PHONE)
    await page.reload()
    await heading(t.nav)
    await fitsPhone(`${locale}: the list with long names and twenty keywords`)
    await inspect(`${locale}-390-chat-rules`, ['h1', 'tbody tr:nth-child(3)'])
    await page.getByRole('link', { name: LONG_RULES[0].name, exact: true }).click()
    await page.getByRole('textbox', { name: t.keywords }).waitFor()
    await fitsPhone(`${locale}: the form of a rule with a long name and twenty keywords`)
    await inspect(`${locale}-390-chat-rule-form`)
    await page.getByRole('textbox', { name: t.text }).fill(LONG_TEXT)
    await page.getByRole('button', { name: t.preview }).click()
    await page.locator('.preview__text').waitFor()
    await fitsPhone(`${locale}: the preview of a long text`)
    await inspect(`${locale}-390-chat-rule-preview`, ['label[for="text"]', '.preview'])
    await page.setViewportSize(DESKTOP)
  }
  for (const rule of longRules) await fetch(`${base}/v1/chat-rules/${rule.id}`, { method: 'DELETE', headers: seller })
  const rules = (await (await fetch(`${base}/v1/chat-rules`, { headers: seller })).json()).data.rules
  check(rules.length === 2, 'the API agrees: only the demo rules are left', JSON.stringify(rules.map((r) => r.name)))
  check(axeViolations.length === 0, `axe-core: no WCAG A / AA violation on ${pages} pages`, axeViolations.join('\n'))
  check(problems.length === 0, 'no console error, no CSP violation, no page error', problems.join('\n'))
} catch (err) {
  check(false, 'the Auto-replies page in Chromium', err.stack ?? err.message)
  await page?.screenshot({ path: join(shots, 'failure.png') }).catch(() => {})
  if (instance) console.log(`the service's output, last lines:\n${instance.output().split('\n').slice(-20).join('\n')}`)
} finally {
  await context?.close().catch(() => {})
  await instance?.stop()
  if (instance) rmSync(instance.dir, { recursive: true, force: true })
  rmSync(profile, { recursive: true, force: true })
}
console.log(`screenshots: ${shots}`)
console.log(`portal browser chat rules: ${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
