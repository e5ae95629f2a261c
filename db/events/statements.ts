// Hot writes as one statement each: the change, its ledger row, the shop's
// event seq and the event row in data-modifying CTEs, sent as one named
// prepared statement without BEGIN / COMMIT (a statement is atomic); the stock
// writes and the delivery requests append theirs with the same CTEs inside
// their transaction. The guarantees of the event store (docs/events.md): the
// `UPDATE` of the shop row takes its lock, held until commit, and after waiting
// for it re-reads the latest event_seq, so a shop's seqs are given in commit
// order and a reader that has seen seq N has seen every seq below N; the trigger
// events_webhook_fan_out adds the event's webhook deliveries at the end of the
// statement. The order-count triggers also fire at the end of the statement, so
// every such write locks in the same order: the order row, the shop row, the
// count rows.
import type { Db } from '../core/client.js'
import { EVENTS_CHANNEL } from './store.js'
import { notifyCommitted } from '../core/notifications.js'

/**
 * CTEs `n`, `s` and `e` appending the rows of CTE `rows` (ord, type, data), in
 * `ord` order, to the feed of shop `shop` (an SQL expression: a parameter, or a
 * scalar subquery over an earlier CTE) as consecutive seqs. The one way events
 * are written. Nothing is written when `rows` is empty.
 */
export function appendEventRowsCtes (rows: string, shop: string): string {
  return `n as (select count(*)::bigint as total from ${rows}), s as (
    update shops set event_seq = shops.event_seq + n.total from n
    where shops.id = ${shop} and n.total > 0
    returning shops.id, shops.event_seq, n.total
  ), e as (
    insert into events (shop_id, seq, type, data)
    select s.id, s.event_seq - s.total + row_number() over (order by ${rows}.ord), ${rows}.type, ${rows}.data
    from s, ${rows}
  )`
}

/**
 * appendEventRowsCtes of one event (CTE `ev`) of `type` to the feed of the shop
 * of `source` (a CTE of one row with `shop_id`), when `condition` (SQL over
 * `source`) holds; `data` is the event's data, an SQL expression over `source`
 * and the CTEs named in `from`, if any.
 */
export function appendEventCtes ({ source, condition, type, data, from }: {
  source: string
  condition: string
  type: string
  data: string
  from?: string
}): string {
  return `ev as (
    select 1 as ord, '${type}' as type, ${data} as data
    from ${from === undefined ? source : `${source}, ${from}`} where ${condition}
  ), ${appendEventRowsCtes('ev', `(select shop_id from ${source})`)}`
}

/** What a one-statement write returns besides the response's columns: whose feed got an event, if any. */
export interface EventOutcome { eventShopId: string | null }

/**
 * Sends the hint for held long polls (and the webhook worker) once a
 * one-statement write that appended an event has returned, i.e. committed.
 */
export function notifyEvent (db: Db, outcome: EventOutcome): void {
  if (outcome.eventShopId !== null) notifyCommitted(db, EVENTS_CHANNEL, outcome.eventShopId)
}
