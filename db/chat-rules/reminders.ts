// The `order.unconfirmed` reminders (docs/chat-rules.md, "The reminder
// scheduler"): an order delivered while such a rule is enabled gets a row in
// chat_rule_reminders (the events trigger adds it at the delivery's commit). Every
// instance takes the due rows in batches with FOR UPDATE SKIP LOCKED and deletes
// each in the statement that posts its reminder (chat_rules_remind_due,
// db/chat-rules/triggers.sql): one statement, so an instance killed mid-batch
// leaves the whole batch due for the next sweep of any instance.
import type { Db } from '../core/client.js'
import { notifyCommitted } from '../core/notifications.js'
import { run } from '../core/sql.js'
import { EVENTS_CHANNEL } from '../events/store.js'

/** Due reminders one statement takes at most. */
const BATCH = 100

/**
 * Posts due reminders, a batch per statement, until none is left or about `max`
 * were taken; `onBatch` hears each committed batch's count. Returns how many were taken.
 */
export async function remindDue (db: Db, max: number, onBatch: (taken: number) => void = () => {}): Promise<number> {
  let taken = 0
  while (taken < max) {
    const [{ batch }] = await run<{ batch: { taken: number, shops: string[] } }>(db,
      'select chat_rules_remind_due($1::int) as batch', [BATCH])
    // The batch has committed: the held long polls and the webhook worker of those shops get their hint.
    for (const shopId of batch.shops) notifyCommitted(db, EVENTS_CHANNEL, shopId)
    taken += batch.taken
    if (batch.taken > 0) onBatch(batch.taken)
    if (batch.taken < BATCH) break
  }
  return taken
}
