// The feed scenario of `npm run bench` (docs/performance.md, "Sealed delivered
// values"), over HTTP against the stock service (the values key set) and the
// stock baseline (scripts/bench/baseline.ts, GET /v1/events): the first page of
// 50 events of a shop's feed, every event an `order.delivered` whose order's
// values are sealed, so each page opens 50 boxes (AES-256-GCM) on both sides.
// The requests go round FEED_SHOPS shops (seeded by scripts/bench/seed-stock.ts).
// Target ≥ 1.2× the baseline's pages a second.
import { isDeepStrictEqual } from 'node:util'
import type { Measure, Workload } from './load.js'
import { log, type Server } from './processes.js'
import { seedFeed, type FeedReader } from './seed-stock.js'

/** Shops whose feed is read, each with more events than a page. */
export const FEED_SHOPS = 200
/** Events in each shop's feed, and in a page. */
const EVENTS_PER_SHOP = 60
export const FEED_PAGE = 50

export interface FeedFixtures { readers: FeedReader[] }
export interface FeedResult { page: { baseline: Measure, service: Measure } }

/** Seeds the feeds into the stock database (migrated): one value an order, as a gift code or a key is. */
export async function seedFeedBench (url: string, stockKey: Buffer): Promise<FeedFixtures> {
  return { readers: await seedFeed(url, stockKey, FEED_SHOPS, EVENTS_PER_SHOP, 1) }
}

const path = `/v1/events?limit=${FEED_PAGE}`

function feedPages (readers: FeedReader[]): Workload {
  let next = 0
  return {
    name: 'feed page',
    next: () => ({ method: 'GET', path, headers: { authorization: `Bearer ${readers[next++ % readers.length].secret}` } })
  }
}

async function page (server: Server, secret: string): Promise<{ status: number, body: any }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { authorization: `Bearer ${secret}` } })
  return { status: res.status, body: await res.json() }
}

/** One page from each side: the same JSON, 50 events, every order's values opened. */
export async function preflightFeed (service: Server, baseline: Server, fixtures: FeedFixtures) {
  const secret = fixtures.readers[0].secret
  const [s, b] = [await page(service, secret), await page(baseline, secret)]
  if (s.status !== 200 || b.status !== 200 || !isDeepStrictEqual(s.body, b.body)) {
    throw new Error(`preflight feed: service ${s.status} and baseline ${b.status} differ\n` +
      `${JSON.stringify(s.body).slice(0, 400)}\n${JSON.stringify(b.body).slice(0, 400)}`)
  }
  const events = s.body.data.events as Array<{ type: string, data: { order: { deliveredValues: unknown } } }>
  const opened = events.every((e) => e.type === 'order.delivered' && Array.isArray(e.data.order.deliveredValues) &&
    String(e.data.order.deliveredValues[0]).startsWith('GIFT-'))
  if (events.length !== FEED_PAGE || !opened) {
    throw new Error(`preflight feed: not a page of ${FEED_PAGE} opened orders: ${JSON.stringify(s.body).slice(0, 400)}`)
  }
  log(`preflight feed: same JSON from both servers, ${FEED_PAGE} sealed orders opened`)
}

/** One run of the feed scenario; `pair` measures baseline against service in slices taken in turns. */
export async function feedRun (
  service: Server, baseline: Server, fixtures: FeedFixtures,
  pair: (b: { server: Server, workload: Workload }, s: { server: Server, workload: Workload }) => Promise<{ baseline: Measure, service: Measure }>
): Promise<FeedResult> {
  const pages = await pair({ server: baseline, workload: feedPages(fixtures.readers) }, { server: service, workload: feedPages(fixtures.readers) })
  return { page: pages }
}
