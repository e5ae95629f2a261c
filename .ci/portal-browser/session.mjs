// What every part of the portal's browser check (.ci/portal-browser.mjs) shares:
// the counts and their `check`, a webhook receiver, the service started as a
// newcomer starts it, Chromium on the printed portal link, and on each page
// axe-core and a screenshot.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { root, startInstance } from '../live-instance.mjs'

const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
const writeDocs = process.argv.includes('--docs')
/** The screenshots docs/portal.md shows. */
const DOCS = new Set([
  'ru-api-keys', 'en-api-keys-created', 'en-api-key-revoke', 'en-webhooks', 'en-webhook', 'en-webhook-form-error',
  'en-delivery-endpoint', 'en-stock', 'en-stock-product', 'en-stock-upload', 'en-stock-uploaded', 'en-stock-settings',
  'ru-stock-upload-error', 'en-activity', 'ru-activity', 'session-ended', 'en-sales', 'ru-sales',
  'en-claims', 'ru-claims', 'en-claim-reject', 'en-claim-replace', 'en-webhook-failing', 'en-webhook-attempts',
  'ru-webhook-attempts', 'en-sales-this-month',
  // The seller's workplace (narrow-screens.mjs), at desktop width and at 390 px.
  ...['en', 'ru', 'en-390', 'ru-390'].flatMap((prefix) =>
    ['attention', 'orders', 'order-chat', 'stock-items'].map((page) => `${prefix}-${page}`))
])
/** The browser's own time zone: the Sales page opened without one takes it. */
export const BROWSER_ZONE = 'Asia/Yekaterinburg'

const counts = { passed: 0, failed: 0 }
export const check = (ok, what, detail = '') => {
  if (ok) counts.passed++
  else counts.failed++
  console.log(
    `${ok ? 'ok' : 'FAILED'}: ${what}${!ok && detail ? `\n    ${String(detail).split('\n').join('\n    ')}` : ''}`
  )
}
/** The last line, which .ci/run counts. */
export function report () {
  console.log(`portal browser: ${counts.passed} passed, ${counts.failed} failed`)
  process.exitCode = counts.failed > 0 ? 1 : 0
}

/** A webhook receiver on 127.0.0.1: counts what it is sent, answers 200. */
async function receiver () {
  const received = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      received.push(body)
      res.writeHead(200).end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

/**
 * The service (embedded default) with a webhook receiver, and Chromium on it, once
 * `s.open()` has run: `s.page`, `s.base`, `s.link` (the printed portal link), `s.hooks`,
 * `s.instance`; `s.inspect(name)`, `s.nav(name)`, `s.heading(text)`,
 * `s.api(method, path, headers)`, `s.operator` / `s.seller` (headers); `s.finish()`
 * checks axe's and the console's findings; `s.close()` stops whatever was started.
 */
export function createSession () {
  const s = {
    shots: mkdtempSync(join(tmpdir(), 'seller-portal-screenshots-')),
    profile: mkdtempSync(join(tmpdir(), 'seller-api-chromium-')),
    problems: [],
    axeViolations: [],
    seen: []
  }
  const axeSource = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')
  s.close = async () => {
    await s.context?.close().catch(() => {})
    await s.instance?.stop()
    if (s.instance) rmSync(s.instance.dir, { recursive: true, force: true })
    await s.hooks?.close()
    rmSync(s.profile, { recursive: true, force: true })
    console.log(`screenshots: ${s.shots}`)
  }
  s.open = async () => {
    s.hooks = await receiver()
    process.env.WEBHOOK_ALLOW_HTTP = 'true'
    process.env.WEBHOOK_ALLOW_PRIVATE = 'true'
    // Few link openings per client IP, so that the refusal's page is reached.
    process.env.PUBLIC_RATE_LIMIT_MAX = '3'
    s.instance = await startInstance()
    const base = s.base = s.instance.baseUrl
    s.link = s.instance.output().match(/seller portal: (\S+\/portal\/enter\?token=portal_link_[A-Za-z0-9_-]{43})/)?.[1]
    check(Boolean(s.link), 'the first start printed a seller portal link for the demo shop')

    s.context = await chromium.launchPersistentContext(s.profile, {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      args: flags,
      timeout: 60_000,
      viewport: { width: 1100, height: 800 },
      timezoneId: BROWSER_ZONE
    })
    await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    const page = s.page = s.context.pages()[0] ?? (await s.context.newPage())
    page.setDefaultTimeout(20_000)
    // The pages that answer 400 (a refused form), 401 (a used link, an ended session) and 429 (too many
    // openings) are expected to.
    const expected = /^Failed to load resource: the server responded with a status of (400|401|429) /
    page.on('console', (message) => {
      if (message.type() === 'error' && !expected.test(message.text())) {
        s.problems.push(`console: ${message.text()} (on ${page.url()}, after the screenshot ${s.seen.at(-1)})`)
      }
    })
    page.on('pageerror', (err) => s.problems.push(`page error: ${err.message}`))

    /** axe-core (WCAG 2.x A and AA) on the page as it is, and a screenshot. */
    s.inspect = async (name) => {
      await page.waitForLoadState('load')
      await page.evaluate(axeSource)
      const result = await page.evaluate(() =>
        globalThis.axe.run(document, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] }
        })
      )
      for (const v of result.violations) {
        s.axeViolations.push(
          `${name}: ${v.id} (${v.impact}): ${v.help}: ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`
        )
      }
      await page.screenshot({ path: join(s.shots, `${name}.png`) })
      if (writeDocs && DOCS.has(name)) await page.screenshot({ path: join(root, 'docs', 'portal', `${name}.png`) })
      s.seen.push(name)
    }
    s.nav = (name) => page.getByRole('navigation').getByRole('link', { name, exact: true })
    /** Waits until htmx has swapped in the page whose h1 reads `heading`. */
    s.heading = (text) => page.getByRole('heading', { level: 1, name: text }).waitFor()

    s.operator = { authorization: `Bearer ${s.instance.internalToken}`, 'content-type': 'application/json' }
    s.seller = { authorization: `Bearer ${s.instance.apiKey}`, 'content-type': 'application/json' }
    /** The data of an API call that must succeed (a POST sends `{}`). */
    s.api = async (method, path, headers) => {
      const res = await fetch(`${base}${path}`, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) })
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
      return (await res.json()).data
    }
    s.finish = () => {
      check(
        s.axeViolations.length === 0,
        `axe-core: no WCAG A / AA violation on ${s.seen.length} pages`,
        s.axeViolations.join('\n')
      )
      check(s.problems.length === 0, 'no console error, no CSP violation, no page error', s.problems.join('\n'))
    }
  }
  return s
}
