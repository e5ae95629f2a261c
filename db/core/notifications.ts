// NOTIFY after commit, not inside the transaction. A transaction that NOTIFYs
// takes a cluster-wide lock at commit and holds it through its WAL flush, so all
// notifying transactions commit one at a time (`npm run bench:events` measures
// it: with 20 writers, a NOTIFY in each event's transaction cut commits/s to
// 0.4–0.67×; sent as below, 0.9–0.95×). Here a transaction only collects its notifications; once it has
// committed, they are sent from a connection of their own with
// synchronous_commit off (a hint need not wait for the disk), and what queues up
// while one NOTIFY is on its way leaves in the next, one payload per line. A
// notification is only a hint: listeners re-read what it points to.
import type { Db, Tx } from './drizzle-types.js'

/** Postgres refuses NOTIFY payloads of 8 000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7900
const RETRY_MS = 1000

type Queued = Array<{ channel: string, payload: string }>
const queuedByTransaction = new WeakMap<object, Queued>()
const notifierOf = new WeakMap<object, Notifier>()

/**
 * Sends `payload` on `channel` once `tx` has committed; never if it rolls back.
 * `tx` must come from `db.transaction` of a database opened by db/core/client.ts.
 */
export function notifyAfterCommit (tx: Tx, channel: string, payload: string) {
  const queued = queuedByTransaction.get(tx)
  if (!queued) throw new Error('notifyAfterCommit needs a transaction of db.transaction (not a nested one)')
  queued.push({ channel, payload })
}

/**
 * Sends `payload` on `channel` now: for a change made by a single statement
 * outside a transaction, which has committed once it returned. Only a database
 * opened by db/core/client.ts has a notifier; on any other nothing is sent (the
 * change has committed, and a hint is only a hint).
 */
export function notifyCommitted (db: Db, channel: string, payload: string) {
  notifierOf.get(db)?.notify(channel, payload)
}

/** The payloads one received notification carries. */
export function payloadsOf (notification: string): string[] {
  return notification.split('\n')
}

/** Batches notifications per channel and sends them with `send`, retrying while the database is away. */
export class Notifier {
  private readonly queued = new Map<string, Set<string>>()
  private sending: Promise<void> | null = null
  private retry: NodeJS.Timeout | undefined
  private closed = false
  private readonly send: (channel: string, payload: string) => Promise<unknown>

  constructor (send: (channel: string, payload: string) => Promise<unknown>) {
    this.send = send
  }

  notify (channel: string, payload: string) {
    if (this.closed) return
    this.enqueue(channel, payload)
    this.startSending()
  }

  /** Sends what is queued (one more try if that fails), then stops. */
  async close () {
    this.closed = true
    clearTimeout(this.retry)
    await this.sending
    if (this.queued.size > 0) await this.flush()
  }

  private enqueue (channel: string, payload: string) {
    let payloads = this.queued.get(channel)
    if (!payloads) this.queued.set(channel, payloads = new Set())
    payloads.add(payload)
  }

  private startSending () {
    this.sending ??= this.flush().finally(() => {
      this.sending = null
      // Queued after the last batch left, or while a retry is not due.
      if (this.queued.size > 0 && this.retry === undefined && !this.closed) this.startSending()
    })
  }

  private async flush () {
    for (let next = this.nextBatch(); next; next = this.nextBatch()) {
      try {
        await this.send(next.channel, next.payloads.join('\n'))
      } catch {
        // Keep them and try again later: the connection comes back on its own.
        for (const payload of next.payloads) this.enqueue(next.channel, payload)
        if (!this.closed) {
          this.retry ??= setTimeout(() => {
            this.retry = undefined
            this.startSending()
          }, RETRY_MS).unref()
        }
        return
      }
    }
  }

  /** Takes up to one NOTIFY's worth of payloads of one channel off the queue. */
  private nextBatch (): { channel: string, payloads: string[] } | null {
    const first = this.queued.entries().next()
    if (first.done) return null
    const [channel, payloads] = first.value
    const batch: string[] = []
    let bytes = 0
    for (const payload of payloads) {
      const size = Buffer.byteLength(payload) + 1
      if (batch.length > 0 && bytes + size > MAX_PAYLOAD_BYTES) break
      batch.push(payload)
      bytes += size
      payloads.delete(payload)
    }
    if (payloads.size === 0) this.queued.delete(channel)
    return { channel, payloads: batch }
  }
}

/**
 * Lets `tx`, a transaction of `db` not begun by db.transaction (a pipelined
 * one: db/core/pipelined-transaction.ts), queue notifications with
 * notifyAfterCommit; the function returned sends them, to be called once it has committed.
 */
export function queueNotifications (db: Db, tx: Tx): () => void {
  const queued: Queued = []
  queuedByTransaction.set(tx, queued)
  return () => {
    const notifier = notifierOf.get(db)
    for (const { channel, payload } of queued) notifier?.notify(channel, payload)
  }
}

/** `db` whose transactions send the notifications they queued once they have committed. */
export function notifyingAfterCommit (db: Db, notifier: Notifier): Db {
  notifierOf.set(db, notifier)
  const transaction = db.transaction.bind(db)
  db.transaction = async function transactionThenNotify (run, config) {
    const queued: Queued = []
    const result = await transaction(async (tx) => {
      queuedByTransaction.set(tx, queued)
      return run(tx)
    }, config)
    for (const { channel, payload } of queued) notifier.notify(channel, payload)
    return result
  } as Db['transaction']
  return db
}
