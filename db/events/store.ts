// The event store (docs/events.md): reading a shop's feed, and the retention.
// Events are written in the statement of the change they describe
// (db/events/statements.ts), so an event exists exactly when its change
// committed. The shop row's `event_seq` is bumped under the row lock, which is
// held until commit: a shop's events get their seq in commit order, and a
// reader that has seen seq N has already seen every seq below N.
import { eq, sql } from 'drizzle-orm'
import type { EventType } from '../../domain/event-types.js'
import type { Db, Queryable } from '../core/client.js'
import { preparedOnce, rawQuery } from '../core/sql.js'
import { isoTime, nowMs } from '../core/time.js'
import { events, shops } from '../tables.js'

export interface EventRow {
  id: string
  shopId: string
  seq: number
  type: EventType
  data: unknown
  /** ISO 8601 with milliseconds, as the API writes times. */
  createdAt: string
}

/**
 * The LISTEN/NOTIFY channel that says "this shop has a new event" (payload: the
 * shop id). Only a hint for held long polls: readers always re-read the table.
 */
export const EVENTS_CHANNEL = 'seller_api_events'

/**
 * How far past the cursor one read looks (in seqs, which are dense within a
 * shop): with a `types` filter that skips most events, a read stays bounded and
 * the cursor still moves past what it examined.
 */
const SCAN_WINDOW = 1000

export interface FeedRead {
  /** The examined position: the cursor given, or the oldest retained position when none was. */
  after: number
  /** Up to `limit` events of the wanted kinds after `after`, oldest first. */
  events: Array<Omit<EventRow, 'shopId'>>
  /** Where the next read starts: past every event examined. */
  nextSeq: number
  /** The shop's newest seq, and the highest seq the retention has deleted. */
  newest: number
  pruned: number
}

/**
 * The read of a page and the shop's positions, $1 shop, $2 cursor (null: from
 * the oldest retained event), $3 kinds, $4 limit: one row per event found, or
 * one row without an event. A hot read as the driver returns it (rawQuery):
 * times formatted in SQL as the API writes them, no mapping in Node.
 */
const readFeedSql = `select s.event_seq as newest, s.event_pruned_seq as pruned, a.after,
    e.id, e.seq, e.type, e.data, ${isoTime('e.created_at')} as "createdAt"
  from shops s
  cross join lateral (select coalesce($2::bigint, s.event_pruned_seq) as after) a
  left join lateral (
    select id, seq, type, data, created_at from events
    where shop_id = s.id and seq > a.after and seq <= a.after + ${SCAN_WINDOW} and type = any($3::text[])
    order by seq limit $4::int
  ) e on true
  where s.id = $1
  order by e.seq`

interface FeedRow {
  newest: string | number
  pruned: string | number
  after: string | number
  id: string | null
  seq: string | number
  type: EventType
  data: unknown
  createdAt: string
}

/**
 * One read of the shop's feed after `after` (null: from the oldest retained
 * event), in one statement: the events and the shop's positions come from the
 * same snapshot, so "nothing newer than `newest`" is exact.
 */
export async function readFeed (
  db: Db, shopId: string, after: number | null, types: readonly EventType[], limit: number
): Promise<FeedRead> {
  const query = preparedOnce(db, 'read_feed', () => rawQuery<FeedRow>(db, readFeedSql))
  const rows = await query([shopId, after, [...types], limit])
  const newest = Number(rows[0].newest)
  const from = Number(rows[0].after)
  const found = rows[0].id === null
    ? []
    : rows.map(({ id, seq, type, data, createdAt }) => ({ id: id!, seq: Number(seq), type, data, createdAt }))
  // A full page ends at its last event; otherwise everything up to the window's end (or the newest event) was examined.
  const nextSeq = found.length === limit ? found[found.length - 1].seq : Math.min(newest, from + SCAN_WINDOW)
  return { after: from, events: found, nextSeq, newest, pruned: Number(rows[0].pruned) }
}

/**
 * The page `readFeed(db, shopId, after, types, limit)` would give, taken from a
 * read of every kind of event made from an earlier or equal position
 * (plugins/event-wakeups.ts shares one among the held requests of a shop), or
 * null when that read cannot tell: it did not examine past `after`, the cursor
 * has expired since, or it examined only part of what comes after `after`
 * without finding anything (a read of its own goes on from there).
 */
export function pageOf (shared: FeedRead, after: number, types: readonly EventType[], limit: number): FeedRead | null {
  if (after < shared.after || after < shared.pruned || after > shared.nextSeq) return null
  const wanted = new Set(types)
  const found = shared.events.filter((event) => event.seq > after && wanted.has(event.type)).slice(0, limit)
  // shared.nextSeq is the end of what the shared read examined.
  const nextSeq = found.length === limit ? found[found.length - 1].seq : Math.min(shared.nextSeq, after + SCAN_WINDOW)
  if (found.length === 0 && nextSeq < shared.newest) return null
  return { after, events: found, nextSeq, newest: shared.newest, pruned: shared.pruned }
}

/** The shop's newest seq: the position `after=latest` stands for. */
export async function newestEventSeq (db: Queryable, shopId: string): Promise<number> {
  const [shop] = await db.select({ newest: shops.eventSeq }).from(shops).where(eq(shops.id, shopId))
  return shop.newest
}

/** Arbitrary constant: the advisory lock that lets one instance at a time delete old events. */
const RETENTION_LOCK = 7_310_455_022

/**
 * Deletes events older than `retentionDays`, in batches of `batchSize`, each
 * in its own short transaction that also raises the shops' retention
 * watermark. Per shop it deletes every seq up to the newest expired one, so the
 * watermark is exactly "everything at or below it is gone". Safe to run from
 * every instance at once: the batches take turns on an advisory lock, and each
 * deletes only what is still there.
 */
export async function pruneEvents (db: Db, retentionDays: number, batchSize = 1000): Promise<void> {
  const expired = sql`${nowMs} - make_interval(days => ${retentionDays}::int)`
  for (;;) {
    const [oldest] = await db.select({ seq: events.seq }).from(events)
      .where(sql`${events.createdAt} < ${expired}`).limit(1)
    if (!oldest) return
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${RETENTION_LOCK}::bigint)`)
      await tx.execute(sql`
        with doomed as (
          select shop_id, seq from events where created_at < ${expired} order by created_at limit ${batchSize}::int
        ), marks as (
          select shop_id, max(seq) as seq from doomed group by shop_id
        ), gone as (
          delete from events e using marks m where e.shop_id = m.shop_id and e.seq <= m.seq
        )
        update shops s set event_pruned_seq = greatest(s.event_pruned_seq, m.seq) from marks m where s.id = m.shop_id`)
    })
  }
}
