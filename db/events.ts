// The event store (CONTRACT section 10): `recordEvent` runs inside the
// transaction of the change it describes, so an event exists exactly when its
// change committed. The shop row's `event_seq` is bumped under the row lock,
// which is held until commit: a shop's events get their seq in commit order,
// and a reader that has seen seq N has already seen every seq below N.
import { eq, sql } from 'drizzle-orm'
import type { EventType } from '../domain/event-types.js'
import type { Tx } from './client.js'
import { events, shops } from './schema.js'
import { enqueueWebhookDeliveries } from './webhook-deliveries.js'

export interface NewEvent { shopId: string, type: EventType, data: unknown }

export interface EventRow {
  id: string
  shopId: string
  seq: number
  type: EventType
  data: unknown
  createdAt: Date
}

/** Appends an event to the shop's feed, in the caller's transaction. */
export async function recordEvent (tx: Tx, event: NewEvent): Promise<EventRow> {
  const [shop] = await tx.update(shops)
    .set({ eventSeq: sql`${shops.eventSeq} + 1` })
    .where(eq(shops.id, event.shopId))
    .returning({ seq: shops.eventSeq })
  const [row] = await tx.insert(events)
    .values({ shopId: event.shopId, seq: shop.seq, type: event.type, data: event.data })
    .returning()
  await enqueueWebhookDeliveries(tx, row as EventRow)
  return row as EventRow
}
