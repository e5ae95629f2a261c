// The `order.unconfirmed` reminders (docs/chat-rules.md, "The reminder
// scheduler"): an order delivered while such a rule is enabled gets a row in
// chat_rule_reminders (the events trigger adds it at the delivery's commit). Every
// instance takes the due rows in batches with FOR UPDATE SKIP LOCKED and deletes
// each in the statement that posts its reminder (chat_rules_remind_due,
// db/chat-rules/triggers.sql): one statement, so an instance killed mid-batch
// leaves the whole batch due for the next sweep of any instance.
import type { Db } from '../core/client.js'
import { run } from '../core/sql.js'

/** Due reminders one statement takes at most. */
const BATCH = 100

/**
 * Posts due reminders, a batch per statement, until none is left or about `max`
 * were taken; `onBatch` hears each committed batch's count. Returns how many were taken.
 */
export async function remindDue (db: Db, max: number, onBatch: (taken: number) => void = () => {}): Promise<number> {
  let taken = 0
  while (taken < max) {
    const [row] = await run<{ taken: number }>(db, 'select chat_rules_remind_due($1::int) as taken', [BATCH])
    taken += row.taken
    if (row.taken > 0) onBatch(row.taken)
    if (row.taken < BATCH) break
  }
  return taken
}
