// CI: the seller portal in a real browser, as a seller uses it (docs/portal.md).
// Headless Chromium (Debian's `chromium`, driven by playwright-core) opens the
// portal link the embedded default's first start printed, and with the keyboard:
// creates an API key, copies its secret, uses it on /v1, reloads (the secret is
// gone), revokes it after the confirmation and sees /v1 refuse it; adds a webhook
// endpoint and sends a test that a local receiver gets; uploads codes from a .txt
// file and sees the counts; resolves a buyer's claim by replacing its code from
// that stock, and a reject without a note refused; follows a failing webhook endpoint
// from Needs attention to its attempt and the receiver's answer; switches the language; opens
// links until its address is refused (429); signs out. With long names present (a
// 200-character key name, long addresses, product name and chat message) every page
// the portal links to is opened at 390 px in both languages and scrolls no wider
// than the screen (narrow-screens.mjs). Every page, in Russian and in
// English, is checked with axe-core (no WCAG 2 A / AA violation) and screenshotted
// into a temporary directory (its path is printed); no console error, no CSP
// violation; the portal's JavaScript stays under 100 KB gzipped.
// The parts, in the order they run, are in .ci/portal-browser/ (session.mjs: what they share).
//   node .ci/portal-browser.mjs            (CHROMIUM names another binary)
//   node .ci/portal-browser.mjs --docs     also writes docs/portal/*.png
//   node .ci/portal-browser.mjs --only=narrow-screens   only the 390 px step (after entering the portal)
// Ends with `portal browser: N passed, N failed`.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { root } from './live-instance.mjs'
import { apiKeysAndWebhooks } from './portal-browser/api-keys-webhooks.mjs'
import { claimsAndActivity } from './portal-browser/claims-activity.mjs'
import { narrowScreens } from './portal-browser/narrow-screens.mjs'
import { russianAndSessionless } from './portal-browser/russian-sessionless.mjs'
import { check, createSession, report } from './portal-browser/session.mjs'
import { stockAndSales } from './portal-browser/stock-sales.mjs'
import { waitingOrders } from './portal-browser/waiting-orders.mjs'
import { webhookHealth } from './portal-browser/webhook-health.mjs'
import { workplace } from './portal-browser/workplace.mjs'

const JS_BUDGET = 100 * 1024
/** `--only=narrow-screens`: that step alone; anything else named there is refused. */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length)
if (only !== undefined && only !== 'narrow-screens') {
  console.error(`--only: unknown step "${only}" (known: narrow-screens)`)
  process.exit(2)
}

async function allSteps () {
  await apiKeysAndWebhooks(s)
  const products = await stockAndSales(s)
  const claimed = await claimsAndActivity(s, products)
  await workplace(s, claimed)
  await waitingOrders(s, products)
  await webhookHealth(s)
  await narrowScreens(s)
  await russianAndSessionless(s, claimed)
  s.finish()
}

const s = createSession()
try {
  const jsBytes = ['node_modules/htmx.org/dist/htmx.min.js', 'routes/portal/static/portal.js'].reduce(
    (sum, file) => sum + gzipSync(readFileSync(join(root, file)), { level: 9 }).length,
    0
  )
  check(
    jsBytes < JS_BUDGET,
    `the portal's JavaScript is ${(jsBytes / 1024).toFixed(1)} KB gzipped (htmx and portal.js; budget 100 KB)`
  )
  await s.open()
  if (only === 'narrow-screens') {
    // The step alone: enter with the printed link, in English, on Activity, as the steps before leave it.
    await s.page.goto(s.link)
    await s.page.goto(`${s.base}/portal/activity`)
    const english = s.page.getByRole('button', { name: 'English' })
    if (await english.count() > 0) await english.click()
    await s.heading('Activity')
    await narrowScreens(s)
    s.finish()
  } else {
    await allSteps()
  }
} catch (err) {
  check(false, 'the seller portal in Chromium', err.stack ?? err.message)
  await s.page?.screenshot({ path: join(s.shots, 'failure.png') }).catch(() => {})
  const output = s.instance?.output().split('\n').slice(-20).join('\n')
  if (output !== undefined) console.log(`the service's output, last lines:\n${output}`)
} finally {
  await s.close()
}
report()
