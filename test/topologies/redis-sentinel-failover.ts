// Redis behind Sentinel, the primary killed under load (run by .ci/sentinel.sh,
// not by `npm test`: it needs Debian's redis-sentinel, and fails saying so when
// it is missing). Two instances share a primary, a replica and three Sentinels
// (test/fixtures/redis-sentinel.ts) while workers take orders with an
// Idempotency-Key, retrying each with the same key after a 503 or a 409
// "in progress", and others read a rate-limited list. The primary gets SIGKILL;
// the Sentinels promote the replica. Then:
// - the instances use the promoted replica without a restart (keyed takes succeed again);
// - no keyed request ran twice: each take ran once, every other answer was its replay;
// - every 503 during the switch carried Retry-After; reads were never refused (rate limits fail open).
import { setTimeout as pause } from 'node:timers/promises'
import t from 'tap'
import { buy } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { SENTINEL_NAME, startSentinelTopology } from '../fixtures/redis-sentinel.js'
import { waitUntil } from '../fixtures/until.js'
import { build, createShop, type App } from '../helper.js'

const ORDERS = 80
const TAKERS = 4
const READERS = 2
/** How long one take may keep retrying its key before the test gives up on it. */
const RETRY_FOR_MS = 15_000

interface Answer { statusCode: number, replayed: boolean, retryAfter: string | undefined, code: string | undefined, at: number }

t.test('the primary killed under load: the promoted replica is used without a restart, nothing runs twice', async (t) => {
  const topology = await startSentinelTopology()
  t.teardown(topology.stop)
  const sentinelConfig = { REDIS_URL: undefined, REDIS_SENTINELS: topology.sentinels, REDIS_SENTINEL_NAME: SENTINEL_NAME, RATE_LIMIT_MAX: 1_000_000 }
  const apps = [await build(t, sentinelConfig), await build(t, sentinelConfig)]
  const shop = await createShop(apps[0])
  const product = await createProduct(apps[0], shop)
  const orders: string[] = []
  for (let i = 0; i < ORDERS; i++) orders.push((await buy(apps[0], product)).id)

  const answers = new Map<string, Answer[]>()
  const reads: Answer[] = []
  let killed = false
  let next = 0
  const instance = (i: number): App => apps[i % apps.length]

  /** Takes one order with its key until an answer that is not "retry later". */
  async function take (orderId: string, worker: number) {
    const seen: Answer[] = []
    answers.set(orderId, seen)
    const started = Date.now()
    for (let attempt = 0; Date.now() - started < RETRY_FOR_MS; attempt++) {
      const res = await instance(worker + attempt).inject({
        method: 'POST',
        url: `/v1/orders/${orderId}/take`,
        headers: { ...shop.headers, 'idempotency-key': `take-${orderId}` }
      })
      const answer = {
        statusCode: res.statusCode,
        replayed: res.headers['idempotency-replayed'] === 'true',
        retryAfter: res.headers['retry-after'] as string | undefined,
        code: res.statusCode >= 400 ? res.json().error?.code : undefined,
        at: Date.now()
      }
      seen.push(answer)
      if (res.statusCode !== 503 && answer.code !== 'IDEMPOTENCY_IN_PROGRESS') return
      await pause(100)
    }
  }

  const takers = Array.from({ length: TAKERS }, async (_, worker) => {
    while (next < orders.length) {
      const orderId = orders[next++]
      await take(orderId, worker)
      // Half the orders are taken before the kill, half during and after the switch.
      if (!killed) await pause(40)
      else await pause(60)
    }
  })
  let reading = true
  const readers = Array.from({ length: READERS }, async (_, worker) => {
    for (let i = 0; reading; i++) {
      const res = await instance(worker + i).inject({ method: 'GET', url: '/v1/currency-rates', headers: shop.headers })
      reads.push({ statusCode: res.statusCode, replayed: false, retryAfter: res.headers['retry-after'] as string | undefined, code: undefined, at: Date.now() })
      await pause(20)
    }
  })

  await waitUntil('a quarter of the orders taken', () => next >= ORDERS / 4, 60_000, 20)
  topology.killPrimary()
  const killedAt = Date.now()
  killed = true
  await Promise.all(takers)
  reading = false
  await Promise.all(readers)

  t.equal(await topology.primaryNow(), topology.replicaPort, 'the Sentinels promoted the replica')
  for (const app of apps) t.equal(app.redisHealth?.state, 'closed', 'each instance uses Redis again, without a restart')

  const all = [...answers.values()].flat()
  const refused = all.filter((a) => a.statusCode === 503)
  t.ok(refused.length > 0, `keyed takes were refused during the switch (${refused.length} of ${all.length} answers 503)`)
  t.same(refused.filter((a) => a.retryAfter === undefined), [], 'every 503 carries Retry-After')
  t.comment(`keyed requests refused for ${Math.max(...refused.map((a) => a.at)) - killedAt} ms after the kill (Sentinel down-after 1000 ms)`)
  for (const [orderId, seen] of answers) {
    const ran = seen.filter((a) => a.statusCode === 200 && !a.replayed)
    const final = seen.at(-1)!
    if (ran.length !== 1 || final.statusCode !== 200) {
      t.fail(`order ${orderId}: the take ran ${ran.length} times; answers ${seen.map((a) => `${a.statusCode}${a.code ? ' ' + a.code : ''}${a.replayed ? ' (replayed)' : ''}`).join(', ')}`)
    }
  }
  t.equal(answers.size, ORDERS, 'every order was taken')
  const orderStates = await Promise.all(orders.map(async (orderId) =>
    (await apps[0].inject({ method: 'GET', url: `/v1/orders/${orderId}`, headers: shop.headers })).json().data.order.status as string))
  t.same([...new Set(orderStates)], ['processing'], 'every order is processing')

  t.ok(reads.length > 0, `${reads.length} rate-limited reads`)
  t.same(reads.filter((r) => r.statusCode !== 200), [], 'reads were never refused: the rate limits failed open')
  const replay = await instance(1).inject({ method: 'POST', url: `/v1/orders/${orders[0]}/take`, headers: { ...shop.headers, 'idempotency-key': `take-${orders[0]}` } })
  t.equal(replay.headers['idempotency-replayed'], 'true', 'a record written before the kill is replayed by the promoted replica')
})
