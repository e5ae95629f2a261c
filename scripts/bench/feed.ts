// The feed scenario of `npm run bench` (docs/performance/sealed-values.md, "Sealed delivered
// values"), over HTTP against the stock service (the values key set) and the
// stock baseline (scripts/bench/baseline.ts, GET /v1/events): the first page of
// 50 events of a shop's feed, every event an `order.delivered` whose order's
// values are sealed, so each page opens 50 boxes (AES-256-GCM) on both sides.
// The requests go round FEED_SHOPS shops (seeded by scripts/bench/seed-stock.ts).
// Target ≥ 1.2× the baseline's pages a second. Measured the same way, as a
// reference: FEED_SHOPS other shops whose values are stored as a plain list, as
// every order's were before they were sealed, so neither side decrypts: where
// the service stood against the baseline before the encryption.
import { isDeepStrictEqual } from 'node:util'
import type { Measure, Workload } from './load.js'
import { log, type Server } from './processes.js'
import { seedFeed, type FeedReader } from './seed-stock.js'

/** Shops whose feed is read, each with more events than a page. */
export const FEED_SHOPS = 200
/** Events in each shop's feed, and in a page. */
const EVENTS_PER_SHOP = 60
export const FEED_PAGE = 50

export interface FeedFixtures { readers: FeedReader[], clearReaders: FeedReader[] }
export interface FeedResult { page: { baseline: Measure, service: Measure }, clearPage: { baseline: Measure, service: Measure } }

/** Seeds the feeds into the stock database (migrated): one value an order, as a gift code or a key is. */
export async function seedFeedBench (url: string, stockKey: Buffer): Promise<FeedFixtures> {
  return {
    readers: await seedFeed(url, stockKey, FEED_SHOPS, EVENTS_PER_SHOP, 1),
    clearReaders: await seedFeed(url, stockKey, FEED_SHOPS, EVENTS_PER_SHOP, 1, false)
  }
}

const path = `/v1/events?limit=${FEED_PAGE}`

function feedPages (readers: FeedReader[], name = 'feed page'): Workload {
  let next = 0
  return {
    name,
    next: () => ({ method: 'GET', path, headers: { authorization: `Bearer ${readers[next++ % readers.length].secret}` } })
  }
}

async function page (server: Server, secret: string): Promise<{ status: number, body: any }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { authorization: `Bearer ${secret}` } })
  return { status: res.status, body: await res.json() }
}

/** One page of `secret`'s shop from each side: the same JSON, 50 events, every order's values readable. */
async function preflightPage (service: Server, baseline: Server, secret: string, what: string) {
  const [s, b] = [await page(service, secret), await page(baseline, secret)]
  if (s.status !== 200 || b.status !== 200 || !isDeepStrictEqual(s.body, b.body)) {
    throw new Error(`preflight feed (${what}): service ${s.status} and baseline ${b.status} differ\n` +
      `${JSON.stringify(s.body).slice(0, 400)}\n${JSON.stringify(b.body).slice(0, 400)}`)
  }
  const events = s.body.data.events as Array<{ type: string, data: { order: { deliveredValues: unknown } } }>
  const readable = events.every((e) => e.type === 'order.delivered' && Array.isArray(e.data.order.deliveredValues) &&
    String(e.data.order.deliveredValues[0]).startsWith('GIFT-'))
  if (events.length !== FEED_PAGE || !readable) {
    throw new Error(`preflight feed (${what}): not a page of ${FEED_PAGE} orders with values: ${JSON.stringify(s.body).slice(0, 400)}`)
  }
}

/** A page of a sealed shop and of a plain one, the same JSON from both sides. */
export async function preflightFeed (service: Server, baseline: Server, fixtures: FeedFixtures) {
  await preflightPage(service, baseline, fixtures.readers[0].secret, 'sealed')
  await preflightPage(service, baseline, fixtures.clearReaders[0].secret, 'plain')
  log(`preflight feed: same JSON from both servers, ${FEED_PAGE} sealed orders opened, ${FEED_PAGE} plain ones`)
}

/** One run of the feed scenario; `pair` measures baseline against service in slices taken in turns. */
export async function feedRun (
  service: Server, baseline: Server, fixtures: FeedFixtures,
  pair: (b: { server: Server, workload: Workload }, s: { server: Server, workload: Workload }) => Promise<{ baseline: Measure, service: Measure }>
): Promise<FeedResult> {
  const pages = await pair({ server: baseline, workload: feedPages(fixtures.readers) }, { server: service, workload: feedPages(fixtures.readers) })
  const plain = (side: Server) => ({ server: side, workload: feedPages(fixtures.clearReaders, 'feed page, plain values') })
  return { page: pages, clearPage: await pair(plain(baseline), plain(service)) }
}
