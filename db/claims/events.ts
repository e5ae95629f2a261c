// The claim's events (docs/claims.md), appended in the claim's transaction:
// only for an order whose product has automation (`external`), as every order event.
// One statement, sent at once when called (db/core/pipelined-transaction.ts).
import type { EventType } from '../../domain/event-types.js'
import type { Tx } from '../core/client.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { runPrepared } from '../core/sql.js'
import { appendEventRowsCtes } from '../events/statements.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { claimView, type ClaimRow } from './row.js'

export type ClaimEventType = Extract<EventType, `claim.${string}`>

/** Appends `type` with data `{claim}` to the shop's feed when the claim's order is visible. */
export async function recordClaimEvent (tx: Tx, type: ClaimEventType, row: ClaimRow): Promise<void> {
  if (!row.external) return
  await runPrepared(tx,
    `with evs as (select 1 as ord, $2::text as type, $3::text::jsonb as data), ${appendEventRowsCtes('evs', '$1')}
    select 1`, [row.shopId, type, JSON.stringify({ claim: claimView(row) })])
  notifyAfterCommit(tx, EVENTS_CHANNEL, row.shopId)
}
