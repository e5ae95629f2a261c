// Hot writes as one statement each: the change, its ledger row, the shop's
// event seq and the event row in data-modifying CTEs, sent as one named
// prepared statement without BEGIN / COMMIT (a statement is atomic). The event
// keeps the guarantees of recordEvent (db/events.ts): the `UPDATE` of the shop
// row takes its lock, held until commit, and after waiting for it re-reads the
// latest event_seq, so a shop's seqs are given in commit order; the trigger
// events_webhook_fan_out adds the event's webhook deliveries at the end of the
// statement. The order-count triggers also fire at the end of the statement, so
// every such write locks in the same order: the order row, the shop row, the
// count rows.
import type { Db } from './client.js'
import { EVENTS_CHANNEL } from './events.js'
import { notifyCommitted } from './notifications.js'

/**
 * CTEs `s` and `e` appending an event of `type` to the feed of the shop of
 * `source` (a CTE with `shop_id`), when `condition` (SQL over `source`) holds;
 * `data` is the event's data, an SQL expression over the CTEs named in `from`.
 */
export function appendEventCtes ({ source, condition, type, data, from }: {
  source: string
  condition: string
  type: string
  data: string
  from: string
}): string {
  return `s as (
    update shops set event_seq = shops.event_seq + 1 from ${source}
    where shops.id = ${source}.shop_id and ${condition}
    returning shops.id, shops.event_seq
  ), e as (
    insert into events (shop_id, seq, type, data)
    select s.id, s.event_seq, '${type}', ${data} from s, ${from}
  )`
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
