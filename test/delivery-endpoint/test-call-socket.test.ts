// The delivery endpoint's test call (docs/delivery-endpoint.md) as an integrator
// makes it: over a real socket to a listening service (app.inject's request does
// not behave like a socket's), against a real receiver in every kind of answer:
// each gives 200 {result} with `ok` and `problems` as the contract says. The
// attempt is cut short only when the caller really goes away; and an attempt
// cut short by a shutdown is handed back at once, whatever the abort error is.
import t, { type Test } from 'tap'
import { driftProblems } from '../fixtures/openapi-drift.js'
import { freePort } from '../fixtures/free-port.js'
import { until } from '../fixtures/until.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { endpointProduct, localJustInTime, putDeliveryEndpoint, valuesAnswer, waitForRequest } from '../fixtures/delivery-endpoint.js'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { build, createShop, type App, type ShopFixture } from '../helper.js'

const TIMEOUT_MS = 1000

interface TestResult { ok: boolean, statusCode: number | null, durationMs: number, valuesCount: number | null, problems: string[] }

async function listening (app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
}

/** POST /v1/delivery-endpoint/test with fetch; the answer held to the published document. */
async function testCall (t: Test, app: App, base: string, shop: ShopFixture, productId: string, signal?: AbortSignal) {
  const url = '/v1/delivery-endpoint/test'
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { ...shop.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ productId }),
    signal
  })
  const body = await res.text()
  const headers = Object.fromEntries(res.headers)
  for (const problem of driftProblems({ seller: app.swagger() }, 'POST', url, { statusCode: res.status, headers, body })) t.fail(problem)
  return { status: res.status, body: JSON.parse(body) }
}

t.test('every kind of answer gives 200 {result} over a real socket', async (t) => {
  const app = await build(t, { ...localJustInTime, DELIVERY_TIMEOUT_MS: TIMEOUT_MS })
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  const base = await listening(app)

  const variants: Array<{ name: string, answer: () => ReturnType<typeof valuesAnswer> | number, delayMs?: number, result: Partial<TestResult>, problem?: RegExp }> = [
    { name: 'good', answer: () => valuesAnswer(['A', 'B']), result: { ok: true, statusCode: 200, valuesCount: 2, problems: [] } },
    { name: 'no values', answer: () => valuesAnswer([]), result: { ok: false, statusCode: 200, valuesCount: 0 }, problem: /"values" is empty/ },
    {
      name: '101 values',
      answer: () => valuesAnswer(Array.from({ length: 101 }, (_, i) => `V${i}`)),
      result: { ok: false, statusCode: 200, valuesCount: 101 },
      problem: /101 values; at most 100/
    },
    { name: 'HTTP 500', answer: () => 500, result: { ok: false, statusCode: 500, valuesCount: null }, problem: /^HTTP 500: a successful answer is HTTP 200\.$/ },
    { name: 'HTTP 409', answer: () => 409, result: { ok: false, statusCode: 409, valuesCount: null }, problem: /^HTTP 409: the endpoint cannot supply/ },
    {
      name: 'slower than DELIVERY_TIMEOUT_MS',
      answer: () => valuesAnswer(['LATE']),
      delayMs: TIMEOUT_MS + 1000,
      result: { ok: false, statusCode: null, valuesCount: null },
      problem: new RegExp(`^No answer within ${TIMEOUT_MS} ms\\.$`)
    }
  ]
  for (const variant of variants) {
    receiver.answer = variant.answer
    receiver.delayMs = variant.delayMs ?? 0
    const sentBefore = receiver.attempts.length
    const { status, body } = await testCall(t, app, base, shop, product.id)
    t.equal(status, 200, `${variant.name}: 200`)
    const result = body.data.result as TestResult
    t.match(result, variant.result, `${variant.name}: ${JSON.stringify(result)}`)
    t.equal(receiver.attempts.length, sentBefore + 1, `${variant.name}: the receiver got the request`)
    if (variant.problem) {
      t.equal(result.problems.length, 1, `${variant.name}: one problem`)
      t.match(result.problems[0], variant.problem, `${variant.name}: the problem in words`)
    }
    t.notMatch(JSON.stringify(body), /"(A|B|V1|LATE)"/, `${variant.name}: no value returned`)
  }

  // Nobody listens at the endpoint's address.
  receiver.delayMs = 0
  await putDeliveryEndpoint(app, shop, `http://127.0.0.1:${await freePort()}/hooks`)
  const { status, body } = await testCall(t, app, base, shop, product.id)
  t.equal(status, 200, 'connection refused: 200')
  t.match(body.data.result, { ok: false, statusCode: null, valuesCount: null, problems: ['The connection was refused.'] })
})

t.test('the attempt is cut short when the caller goes away, and only then', async (t) => {
  const app = await build(t, { ...localJustInTime, DELIVERY_TIMEOUT_MS: 20_000 })
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(app, shop, receiver.url)
  const base = await listening(app)

  // Held for a while: the caller still waits, so the answer still counts.
  receiver.answer = () => valuesAnswer(['A'])
  receiver.delayMs = 1500
  t.match((await testCall(t, app, base, shop, product.id)).body.data.result, { ok: true, valuesCount: 1 }, 'a slow answer within the timeout')

  receiver.answer = () => 'hang'
  receiver.delayMs = 0
  const caller = new AbortController()
  const call = testCall(t, app, base, shop, product.id, caller.signal).catch((err: Error) => err)
  t.ok(await until(() => receiver.inFlight() === 1), 'the request reached the receiver')
  caller.abort()
  t.match(await call, { name: 'AbortError' })
  t.ok(await until(() => receiver.inFlight() === 0, 5000), 'the attempt is dropped once the caller has gone, not after 20 s')
})

t.test('a delivery request cut short by a shutdown is handed back at once', async (t) => {
  // The lease (the timeout + 5 s) is far longer than the wait below: only a handed-back request is attempted in time.
  const settings = { ...localJustInTime, DELIVERY_TIMEOUT_MS: 30_000 }
  const first = await build(t, settings)
  const shop = await createShop(first)
  const receiver = await startReceiver(t)
  await putDeliveryEndpoint(first, shop, receiver.url)
  const product = await endpointProduct(first, shop)
  receiver.answer = () => 'hang'
  const order = await buy(first, product)
  await receiver.waitFor(() => receiver.inFlight() === 1, 10_000, 'the first attempt')
  await first.close()

  receiver.answer = () => valuesAnswer(['CODE-1'])
  const second = await build(t, settings)
  await receiver.waitFor((attempts) => attempts.length === 2, 15_000, 'the second attempt, well before the first lease ends')
  const request = await waitForRequest(second, shop, order.id, (r) => r.status === 'succeeded')
  t.equal(request.attempts.length, 1, 'the cut attempt is not counted as a failed one')
  t.equal(request.attempts[0].statusCode, 200)
})
