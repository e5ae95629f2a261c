// The example delivery endpoint (examples/delivery-endpoint.ts, built on the
// client's deliveryHandler) as a seller runs it: a child process the service
// asks for real. The test call judges it ok; purchases are delivered with its
// keys, one a unit; a repeat of one webhook-id gets the same keys; a bad
// signature is refused; too many keys is "cannot supply".
import { spawn } from 'node:child_process'
import { Webhook } from 'standardwebhooks'
import t from 'tap'
import { build, createShop } from '../helper.js'
import { buy } from '../fixtures/orders.js'
import { freePort } from '../fixtures/free-port.js'
import { endpointProduct, getOrder, localJustInTime, putDeliveryEndpoint, waitForRequest } from '../fixtures/delivery-endpoint.js'

async function startExample (t: { teardown: (fn: () => unknown) => void }, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/delivery-endpoint.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not start:\n${output}`)), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk
      if (output.includes('listening on')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('exit', (code) => reject(new Error(`the example exited (${code}):\n${output}`)))
  })
  return { child, output: () => output }
}

t.test('the example endpoint supplies real orders through the service', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/deliver`
  const { secret } = await putDeliveryEndpoint(app, shop, url)
  const example = await startExample(t, { DELIVERY_SECRET: secret!, PORT: String(port), MAX_KEYS: '5' })
  const product = await endpointProduct(app, shop)

  const test = await app.inject({ method: 'POST', url: '/v1/delivery-endpoint/test', headers: shop.headers, payload: { productId: product.id, quantity: 2 } })
  t.match(test.json().data.result, { ok: true, statusCode: 200, valuesCount: 2, problems: [] })

  const order = await buy(app, product, { quantity: 3 })
  const request = await waitForRequest(app, shop, order.id, (r) => r.status !== 'pending')
  t.equal(request.status, 'succeeded')
  const delivered = await getOrder(app, shop, order.id)
  t.equal(delivered.deliveredValues.length, 3)
  for (const key of delivered.deliveredValues) t.match(key, /^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/)
  t.match(example.output(), `order ${order.id}: 3 key(s)`)

  // Asked again with the same webhook-id (a lost answer): the same keys.
  const body = JSON.stringify({ type: 'order.delivery_requested', timestamp: request.createdAt, data: { order, test: false } })
  const sign = (id: string) => {
    const timestamp = new Date()
    return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': new Webhook(secret!).sign(id, timestamp, body) }
  }
  const repeat = await fetch(url, { method: 'POST', headers: sign(request.id), body })
  t.equal(repeat.status, 200)
  t.same((await repeat.json()).values, delivered.deliveredValues)

  const forged = await fetch(url, { method: 'POST', headers: { ...sign(request.id), 'webhook-signature': 'v1,AAAA' }, body })
  t.equal(forged.status, 401, 'a bad signature is refused')

  const tooMany = await buy(app, product, { quantity: 6 })
  const refused = await waitForRequest(app, shop, tooMany.id, (r) => r.status !== 'pending')
  t.equal(refused.status, 'failed')
  t.equal(refused.attempts.length, 1, '409: no further attempt')
  t.equal((await getOrder(app, shop, tooMany.id)).status, 'paid')
})
