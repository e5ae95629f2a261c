// The portal's browser check (.ci/portal-browser.mjs), second part: codes uploaded
// from a .txt file and the counts, the stock settings, the delivery endpoint; three
// purchases through the API, then the Sales page (the browser's zone, the totals,
// by product, a reversed range refused).
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BROWSER_ZONE, check } from './session.mjs'

/** `s`: the open session (session.mjs). Resolves to the demo shop's products. */
export async function stockAndSales (s) {
  const { page, base, inspect, nav, heading, api, operator, seller } = s

  // Stock: codes uploaded from a .txt file, and the counts.
  await nav('Stock').click()
  await heading('Stock')
  await inspect('en-stock')
  await page.getByRole('link', { name: 'Steam wallet code, $10' }).click()
  await heading('Stock: Steam wallet code, $10')
  await page.getByRole('link', { name: 'Upload codes' }).click()
  await heading('Upload codes: Steam wallet code, $10')
  await inspect('en-stock-upload')
  const codes = join(s.shots, 'codes.txt')
  writeFileSync(codes, 'STEAM-AAAA-0001\nSTEAM-AAAA-0002\n\nSTEAM-AAAA-0003\nSTEAM-AAAA-0001\n')
  await page.getByLabel('Or a text file (.txt), one code a line').setInputFiles(codes)
  await page.getByRole('button', { name: 'Upload' }).click()
  await heading('Codes uploaded')
  rmSync(codes)
  const result = await page.locator('#upload-result').innerText()
  check(
    /Added\s+3/.test(result) && /Not added[^\n]*\s+1/.test(result),
    "the upload's result: 3 added, 1 repeated",
    result
  )
  check(/Available\s+3/.test(await page.locator('#counts').innerText()), 'the counts: 3 available')
  check(!(await page.content()).includes('STEAM-AAAA'), 'the codes are not shown back')
  await inspect('en-stock-uploaded')
  await page.getByRole('link', { name: 'Stock: Steam wallet code, $10' }).click()
  await heading('Stock: Steam wallet code, $10')
  await inspect('en-stock-product')
  await page.getByRole('link', { name: 'Change settings' }).click()
  await heading('Stock settings: Steam wallet code, $10')
  await inspect('en-stock-settings')

  await nav('Delivery endpoint').click()
  await heading('Delivery endpoint')
  await inspect('en-delivery-endpoint')
  // Sales: three purchases of the demo product (one confirmed, one cancelled) through the API, then the page.
  const { products } = await api('GET', '/v1/products', seller)
  const bought = []
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/internal/v1/orders`, {
      method: 'POST',
      headers: operator,
      body: JSON.stringify({ productId: products[0].id, quantity: 1 + i, fieldValues: [] })
    })
    if (res.status !== 201) throw new Error(`purchase: ${res.status} ${await res.text()}`)
    bought.push((await res.json()).data.order)
  }
  for (const action of ['take', 'deliver']) await api('POST', `/v1/orders/${bought[0].id}/${action}`, seller)
  await api('POST', `/internal/v1/orders/${bought[0].id}/confirm`, operator)
  await api('POST', `/v1/orders/${bought[1].id}/cancel`, seller)
  const stats = await api('GET', `/v1/stats/sales?tz=${encodeURIComponent(BROWSER_ZONE)}`, seller)
  await nav('Sales').click()
  await page.waitForURL(/[?&]tz=/)
  await heading('Sales')
  check(
    new URL(page.url()).searchParams.get('tz') === BROWSER_ZONE &&
      (await page.getByRole('combobox', { name: 'Time zone' }).inputValue()) === BROWSER_ZONE,
    "Sales opened without a zone shows the browser's own",
    page.url()
  )
  const table = page.getByRole('table', { name: 'Sales figures' })
  check((await table.locator('tbody tr').count()) === 30, 'Sales: the last 30 days, a row each')
  const totals = await table.locator('tfoot').innerText()
  check(
    totals.includes(String(stats.totals.orders)) && stats.totals.orders >= 3 && /Total/.test(totals),
    "Sales: the table's totals are the API's",
    `${totals} / ${JSON.stringify(stats.totals)}`
  )
  check((await page.getByRole('img', { name: /^Gross sales per row/ }).count()) === 1, 'Sales: the chart, named')
  await inspect('en-sales')
  await page.getByRole('combobox', { name: 'Group by' }).selectOption('product')
  await page.getByRole('button', { name: 'Show' }).click()
  await page.waitForURL(/groupBy=product/)
  await heading('Sales')
  check(
    (await table.getByRole('rowheader', { name: 'Steam wallet code, $10' }).count()) === 1,
    'Sales by product: the demo product'
  )
  await inspect('en-sales-product')
  await page.getByRole('link', { name: 'This month' }).click()
  await page.waitForURL(/from=\d{4}-\d\d-01&/)
  await heading('Sales')
  check(
    (await page.getByRole('link', { name: 'This month' }).getAttribute('aria-current')) === 'true' &&
      (await page.locator('.chart__svg--wide .chart__label--money').count()) === 3,
    'Sales: the preset "This month" shows the month so far, by product as before, the chart with its money axis'
  )
  await inspect('en-sales-this-month')
  await page.getByLabel('From', { exact: true }).fill('2030-01-02')
  await page.getByLabel('To', { exact: true }).fill('2030-01-01')
  await page.getByRole('button', { name: 'Show' }).click()
  await page.locator('.error-summary').waitFor()
  check(
    (await page.locator('.error-summary').innerText()).includes('From: the start is after the end'),
    'Sales: a reversed range is refused in words for a person, next to From'
  )
  await inspect('en-sales-error')
  return products
}
