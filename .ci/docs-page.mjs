// CI: the /docs page in a real browser, as an integrator uses it. Headless
// Chromium (Debian's `chromium` package, driven by playwright-core: no browser
// download) loads /docs of a live instance, checks our title and header,
// authorizes with the demo API key, runs one "Try it out" call (GET
// /v1/products) and expects a 200 with the demo product, with no console error
// and no page error on the way.
//   node .ci/docs-page.mjs      (CHROMIUM names another binary; default /usr/bin/chromium)
// Ends with `docs page: N passed, N failed`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { startInstance } from './live-instance.mjs'

const TITLE = 'Shop Seller Automation API · API reference'
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

let passed = 0
let failed = 0
const check = (ok, what, detail = '') => {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'ok' : 'FAILED'}: ` +
    `${what}${!ok && detail ? `\n    ${String(detail).split('\n').join('\n    ')}` : ''}`)
}

const profile = mkdtempSync(join(tmpdir(), 'seller-api-chromium-'))
let instance
let context
try {
  instance = await startInstance()
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: flags,
    timeout: 60_000
  })
  const page = context.pages()[0] ?? await context.newPage()
  page.setDefaultTimeout(30_000)
  const problems = []
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`) })
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))

  await page.goto(`${instance.baseUrl}/docs`, { waitUntil: 'load' })
  await page.locator('.swagger-ui .info .title').waitFor()
  check(await page.title() === TITLE, `the tab title is "${TITLE}"`, await page.title())
  check(await page.locator('.swagger-ui .topbar ' +
    'img[src^="data:image/svg+xml"]').count() === 1, 'our header replaces Swagger\'s logo')

  // Authorize: the bearer scheme's value is the API key.
  await page.locator('.swagger-ui .auth-wrapper .btn.authorize').click()
  const bearer = page.locator('.swagger-ui .modal-ux .auth-container').filter({ hasText: 'bearerAuth' })
  await bearer.locator('input').fill(instance.apiKey)
  await bearer.locator('button.authorize').click()
  await bearer.getByRole('button', { name: 'Remove authorization' }).waitFor()
  check(await bearer.locator('h6').textContent() === 'Authorized', 'authorized with the API key')
  await bearer.locator('.btn-done').click()

  // Try it out: GET /v1/products.
  const operation = page.locator('#operations-products-listProducts')
  await operation.locator('.opblock-summary').click()
  await operation.locator('.try-out__btn').click()
  await operation.locator('.execute').click()
  const status = operation.locator('.live-responses-table .response .response-col_status').first()
  await status.waitFor()
  const code = (await status.textContent())?.trim()
  const body = await operation.locator('.live-responses-table .response-col_description pre').first().textContent()
  check(code === '200', 'Try it out: GET /v1/products answers 200', code)
  check(/"success": true/.test(body ?? '') && /"products"/.test(body ?? ''), 'with the demo shop\'s products',
    body?.slice(0, 500))
  check(problems.length === 0, 'no console error, no page error', problems.join('\n'))
} catch (err) {
  check(false, 'the /docs page in Chromium', err.stack ?? err.message)
} finally {
  await context?.close().catch(() => {})
  await instance?.stop()
  if (instance) rmSync(instance.dir, { recursive: true, force: true })
  rmSync(profile, { recursive: true, force: true })
}
console.log(`docs page: ${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
