// pageOf (db/events/store.ts): a held request's page cut from a read of every kind of
// event made for several requests of a shop from the lowest of their cursors —
// the same page its own read would give, or null when the shared read cannot tell.
import t from 'tap'
import { pageOf, type FeedRead } from '../../db/events/store.js'
import type { EventType } from '../../domain/event-types.js'

const at = '2026-01-01T00:00:00.000Z'
const kinds: EventType[] = ['order.paid', 'order.taken', 'message.created', 'order.paid', 'order.delivered']
/** Events 11–15 after position 10; the shop's newest is 15. */
const shared: FeedRead = {
  after: 10,
  events: kinds.map((type, i) => ({ id: `e${11 + i}`, seq: 11 + i, type, data: {}, createdAt: at })),
  nextSeq: 15,
  newest: 15,
  pruned: 0
}
const seqs = (read: FeedRead | null) => read && { seqs: read.events.map((e) => e.seq), nextSeq: read.nextSeq }

t.test('each cursor, filter and limit gets its own page', async (t) => {
  t.same(seqs(pageOf(shared, 10, ['order.paid', 'order.taken', 'message.created', 'order.delivered', 'order.cancelled', 'order.completed'], 50)), { seqs: [11, 12, 13, 14, 15], nextSeq: 15 })
  t.same(seqs(pageOf(shared, 12, ['order.paid'], 50)), { seqs: [14], nextSeq: 15 }, 'a later cursor and a filter: the cursor moves past everything examined')
  t.same(seqs(pageOf(shared, 10, ['order.paid'], 1)), { seqs: [11], nextSeq: 11 }, 'a full page ends at its last event')
  t.same(seqs(pageOf(shared, 13, ['order.completed'], 50)), { seqs: [], nextSeq: 15 }, 'nothing wanted: waits on from the newest position')
  t.same(pageOf(shared, 12, ['order.paid'], 50)?.after, 12)
})

t.test('null where the shared read cannot tell', async (t) => {
  t.equal(pageOf(shared, 9, ['order.paid'], 50), null, 'a cursor before the shared read\'s')
  t.equal(pageOf({ ...shared, pruned: 12 }, 11, ['order.paid'], 50), null, 'a cursor the retention has passed since (its own read answers 410)')
  // Shared with limit 2: examined 11–12 only, the shop has up to 15.
  const partial: FeedRead = { ...shared, events: shared.events.slice(0, 2), nextSeq: 12 }
  t.equal(pageOf(partial, 13, ['order.paid'], 50), null, 'a cursor past what it examined')
  t.equal(pageOf(partial, 11, ['order.delivered'], 50), null, 'nothing found in a part of what is there: read on')
  t.same(seqs(pageOf(partial, 10, ['order.taken'], 50)), { seqs: [12], nextSeq: 12 }, 'found something in the part examined')
})
