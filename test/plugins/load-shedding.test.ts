// Load shedding: over a PRESSURE_* limit (forced here with a 1 MiB heap limit)
// requests get 503 SERVICE_UNAVAILABLE in the envelope with Retry-After, while
// /healthz still answers and /readyz names the pressure.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { build } from '../helper.js'

t.test('over the heap limit, requests are shed with a 503 envelope', async (t) => {
  const app = await build(t, { PRESSURE_MAX_HEAP_USED_MB: 1 })
  // under-pressure samples once a second; give it generous time on a busy machine.
  let res = await app.inject({ method: 'GET', url: '/v1/categories' })
  for (let i = 0; i < 100 && res.statusCode !== 503; i++) {
    await sleep(100)
    res = await app.inject({ method: 'GET', url: '/v1/categories' })
  }
  t.equal(res.statusCode, 503)
  t.same(res.json(), { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'This instance is overloaded; retry shortly.' } })
  t.equal(res.headers['retry-after'], '5')
  t.ok(res.headers['x-request-id'], 'with a request id')

  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness is unaffected')
  const ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.match(ready.json().error, { code: 'SERVICE_UNAVAILABLE', message: /^Not ready: pressure \(heap \d+ MiB over 1 MiB\)\.$/ })
})

t.test('within the limits, nothing is shed and /readyz is ready', async (t) => {
  const app = await build(t)
  await sleep(1500)
  t.equal((await app.inject({ method: 'GET', url: '/v1/categories' })).statusCode, 401, 'reaches authentication')
  const ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 200, ready.body)
  t.equal(app.pressure(), null)
})
