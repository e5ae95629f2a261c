// CI: the portal's Auto-replies page in a real browser (docs/chat-rules.md,
// docs/portal.md). Headless Chromium opens the portal link the embedded default's
// first start printed; the demo shop's two rules are listed; then, in Russian and
// in English, a rule is added, previewed against the shop's recent order, disabled,
// and deleted after the confirmation, with the keyboard and the page's labels.
// Every page is checked with axe-core (no WCAG 2 A / AA violation) and screenshotted
// into a temporary directory (its path is printed); no console error, no CSP violation.
//   node .ci/portal-browser-chat-rules.mjs      (CHROMIUM names another binary)
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
    viewport: { width: 1100, height: 800 }
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
  async function inspect (name) {
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
    pages++
  }
  const heading = (text) => page.getByRole('heading', { level: 1, name: text }).waitFor()

  await page.goto(link)
  await page.getByRole('heading', { level: 1, name: 'Ключи API' }).waitFor()
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
    await inspect(`${locale}-chat-rule-preview`)
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
  }
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
