// Rolling restarts behind a load balancer (docs/deploying-rolling.md): Debian's
// HAProxy in front of two instances (real processes on the shared Postgres and
// Redis), a steady mixed load through it (test/fixtures/mixed-load.ts), each
// instance stopped and started again in turn. With SIGTERM (the drain): not one
// failed request or socket error, every event reaches each watching bot exactly
// once and in order, every webhook is delivered. With SIGKILL: requests fail,
// but the clients' keyed retries leave every order taken and delivered exactly once.
import { setTimeout as pause } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { requireBinaries } from '../fixtures/binaries.js'
import { testRedisUrl } from '../fixtures/databases.js'
import { freePort } from '../fixtures/free-port.js'
import { startHaproxy, type Balancer } from '../fixtures/haproxy.js'
import { startMixedLoad, type MixedLoad } from '../fixtures/mixed-load.js'
import { createProduct } from '../fixtures/products.js'
import { startServerProcess, type ServerProcess } from '../fixtures/server-process.js'
import { waitUntil } from '../fixtures/until.js'
import { startReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import { build, createShop, fileDatabaseUrl, INTERNAL_TOKEN, type ShopFixture } from '../helper.js'

// Two instances started three times each and two load phases: 1.5–3.5 minutes on a busy machine, over the suite's 120 s per file.
t.setTimeout(480_000)

interface Instance { name: string, port: number, process?: ServerProcess }

let balancer: Balancer
const instances: Instance[] = [{ name: 'a', port: 0 }, { name: 'b', port: 0 }]
let serverEnv: Record<string, string>

async function startInstance (instance: Instance) {
  instance.process = await startServerProcess(t, { ...serverEnv, PORT: String(instance.port) })
}

t.before(async () => {
  requireBinaries('apt-get install -y haproxy (.ci/run does)', 'haproxy')
  const databaseUrl = await fileDatabaseUrl()
  serverEnv = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: `test:${new URL(databaseUrl).pathname.slice(1)}:`,
    INTERNAL_TOKEN,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DB_POOL_MAX: '5',
    VALUES_IN_CLEAR: 'true',
    RATE_LIMIT_MAX: '1000000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2,0.2,0.2'
  }
  for (const instance of instances) instance.port = await freePort()
  await Promise.all(instances.map(startInstance))
  balancer = await startHaproxy(t, instances)
  for (const { name } of instances) await balancer.waitUntilUp(name)
})

/** A shop of its own with a product and a webhook endpoint to `receiver`, set up in-process. */
async function setUpShop (receiver: WebhookReceiver) {
  const setup = await build(t, { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true })
  const shop = await createShop(setup)
  const product = await createProduct(setup, shop)
  await createEndpoint(setup, shop, { url: receiver.url })
  await setup.close()
  return { shop, product }
}

/** Restarts each instance in turn with `signal`, waiting for the balancer to send it traffic again. */
async function restartEach (signal: NodeJS.Signals) {
  for (const instance of instances) {
    await pause(2000)
    instance.process!.child.kill(signal)
    await instance.process!.exited
    await startInstance(instance)
    await balancer.waitUntilUp(instance.name)
  }
  await pause(2000)
}

/** Every event of the shop's feed, read once the load has ended. */
async function wholeFeed (shop: ShopFixture) {
  const events: Array<{ id: string, type: string, data: { order: { id: string } } }> = []
  let after: string | undefined
  for (;;) {
    const res = await fetch(`${balancer.url}/v1/events?limit=100${after ? `&after=${after}` : ''}`, { headers: shop.headers })
    const { data } = await res.json()
    events.push(...data.events)
    if (data.events.length === 0) return events
    after = data.nextCursor
  }
}

/** Waits until the bot has fulfilled every order the feed has, then stops the load. */
async function settle (load: MixedLoad, shop: ShopFixture) {
  await load.stopBuying()
  let paid: string[] = []
  await waitUntil(() => `every order to be fulfilled: ${paid.filter((id) => !load.fulfilled.has(id)).length} of ${paid.length} left`,
    async () => {
      paid = (await wholeFeed(shop)).filter((e) => e.type === 'order.paid').map((e) => e.data.order.id)
      return paid.every((id) => load.fulfilled.has(id))
    }, 60_000, 200)
  // The watchers catch up with the last events (a held poll is answered within ~100 ms).
  await pause(1000)
  await load.stop()
}

async function checkOutcome (t: Test, load: MixedLoad, shop: ShopFixture, receiver: WebhookReceiver) {
  const feed = await wholeFeed(shop)
  const byOrder = new Map<string, string[]>()
  for (const event of feed) byOrder.set(event.data.order.id, [...(byOrder.get(event.data.order.id) ?? []), event.type])
  t.ok(byOrder.size >= 50, `${byOrder.size} orders`)
  t.ok(load.bought.every((id) => byOrder.has(id)), 'every purchase the buyer was told of is in the feed')
  const wrong = [...byOrder].filter(([, types]) => types.join() !== 'order.paid,order.taken,order.delivered')
  t.same(wrong, [], 'every order paid, taken and delivered, each exactly once')
  const res = await fetch(`${balancer.url}/v1/orders?status=awaiting_confirmation&limit=1`, { headers: shop.headers })
  t.equal((await res.json()).data.total, byOrder.size, 'and every one of them is awaiting confirmation')
  for (const [i, seen] of load.watched.entries()) {
    t.same(seen.map((e) => e.id), feed.map((e) => e.id), `watcher ${i + 1} received every event exactly once, in order (${seen.length})`)
  }
  await receiver.waitFor(() => receiver.delivered().size >= feed.length, 60_000, 'every webhook')
  const delivered = [...receiver.delivered().values()].map((a) => { const body = JSON.parse(a.body); return `${body.type}:${body.data.order.id}` }).sort()
  t.same(delivered, feed.map((e) => `${e.type}:${e.data.order.id}`).sort(), `every event delivered as a webhook (${delivered.length})`)
}

t.test('SIGTERM, one instance after the other: no failed request, nothing lost or doubled', async (t) => {
  const receiver = await startReceiver(t)
  const { shop, product } = await setUpShop(receiver)
  const load = startMixedLoad({ baseUrl: balancer.url, apiKey: shop.apiKey, product })
  await restartEach('SIGTERM')
  await settle(load, shop)
  t.comment(`${load.wire.requests} requests, ${load.wire.failed} failed, ${load.wire.socketErrors} socket errors: ${load.wire.failures.slice(0, 5).join(' | ')}`)
  t.equal(load.wire.failed, 0, 'no request failed')
  t.equal(load.wire.socketErrors, 0, 'no socket error')
  await checkOutcome(t, load, shop, receiver)
})

t.test('SIGKILL, one instance after the other: the keyed retries leave every order right, exactly once', async (t) => {
  const receiver = await startReceiver(t)
  const { shop, product } = await setUpShop(receiver)
  const load = startMixedLoad({ baseUrl: balancer.url, apiKey: shop.apiKey, product })
  await restartEach('SIGKILL')
  await settle(load, shop)
  t.comment(`${load.wire.requests} requests, ${load.wire.failed} failed, ${load.wire.socketErrors} socket errors (retried)`)
  await checkOutcome(t, load, shop, receiver)
})
