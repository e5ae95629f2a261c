// The portal's browser check (.ci/portal-browser.mjs), webhook health: an endpoint
// whose receiver (on 127.0.0.1) answers 500 with a body is followed, in both
// languages, from Needs attention to the endpoint (its health "failing since") and
// from there to the delivery's attempts, where the receiver's answer is read.
// Starts and ends on the Activity page in English. axe-core on every page (inspect).
import { createServer } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { check } from './session.mjs'

const ANSWER = 'receiver says: the orders database is down'

/** A receiver that answers every webhook 500 with ANSWER. */
async function failingReceiver () {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(ANSWER))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/failing`,
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

/** `s`: the open session, in English on Activity (session.mjs). */
export async function webhookHealth (s) {
  const { page, base, inspect, nav, heading, seller, api } = s
  const receiver = await failingReceiver()
  try {
    const created = await fetch(`${base}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: seller,
      body: JSON.stringify({ url: receiver.url, eventTypes: ['stock.low'], description: 'Failing receiver' })
    })
    if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${await created.text()}`)
    const endpointId = (await created.json()).data.endpoint.id
    await api('POST', `/v1/webhook-endpoints/${endpointId}/test`, seller)
    let answered = false
    for (let i = 0; i < 100 && !answered; i++) {
      const log = await api('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, seller)
      answered = log.deliveries.some((d) => d.lastStatusCode === 500)
      if (!answered) await sleep(100)
    }
    check(answered, 'the failing receiver answered the test event 500')

    const steps = {
      en: {
        attention: 'Needs attention',
        count: /^Webhook endpoints whose last attempt failed: 1$/,
        endpoint: 'Webhook endpoint',
        failing: /^Failing since /,
        view: 'View attempts',
        attempts: 'Delivery of webhook.test',
        status: 'Answer status'
      },
      ru: {
        attention: 'Требует внимания',
        count: /^Адреса вебхуков с неудачной последней попыткой: 1$/,
        endpoint: 'Адрес для вебхуков',
        failing: /^Сбои с /,
        view: 'Попытки',
        attempts: 'Отправка события webhook.test',
        status: 'Код ответа'
      }
    }
    for (const language of ['en', 'ru']) {
      const words = steps[language]
      if (language === 'ru') {
        await page.getByRole('button', { name: 'Русский' }).click()
        await page.locator('html[lang="ru"]').waitFor()
      }
      await nav(words.attention).click()
      await heading(words.attention)
      await page.getByRole('link', { name: words.count }).click()
      await heading(words.endpoint)
      check(page.url() === `${base}/portal/webhooks/${endpointId}`,
        `${language}: Needs attention's count opens the failing endpoint`, page.url())
      check(await page.locator('dd .tag--red').filter({ hasText: words.failing }).isVisible(),
        `${language}: the endpoint's health says it is failing, and since when`)
      await inspect(`${language}-webhook-failing`)
      await page.getByRole('link', { name: words.view }).first().click()
      await heading(words.attempts)
      check(await page.locator('pre.answer').first().textContent() === ANSWER,
        `${language}: the attempt shows the receiver's answer body`)
      check(await page.getByText(words.status).first().isVisible() &&
        (await page.locator('.attempt .tag--red').first().textContent()) === '500',
      `${language}: the attempt shows the answer's status, 500`)
      await inspect(`${language}-webhook-attempts`)
    }
    await page.getByRole('button', { name: 'English' }).click()
    await page.locator('html[lang="en"]').waitFor()
    // Gone again, so that the Russian pages' step (Needs attention, Webhooks) is not about it.
    const deleted = await fetch(`${base}/v1/webhook-endpoints/${endpointId}`, {
      method: 'DELETE', headers: { authorization: seller.authorization }
    })
    check(deleted.status === 200, 'the failing endpoint deleted again', String(deleted.status))
  } finally {
    await receiver.close()
  }
  await nav('Activity').click()
  await heading('Activity')
}
