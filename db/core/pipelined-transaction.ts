// A transaction in as few round trips as it has statements (docs/performance/stock.md,
// "The purchase path"): on postgres.js, BEGIN leaves in the same write as the
// first statement and COMMIT in the same write as the last (`commitWith`), on a
// connection reserved from the pool for the transaction. Postgres runs them in
// order as if each had been awaited; a failed statement aborts the transaction,
// so the COMMIT sent behind it only ends it (ROLLBACK). On PGlite it is
// db.transaction. The transaction offers what the query modules use (run,
// runPrepared, drizzle queries), not nested transactions; notifyAfterCommit
// works as in db.transaction. Statements sent together (`pipelined`) leave in
// one write and run in the order sent.
import type { Sql } from 'postgres'
import type { Db, Tx } from './drizzle-types.js'
import { queueNotifications } from './notifications.js'

type Unsafe = (text: string, params?: unknown[], options?: { prepare?: boolean }) => Promise<unknown[]>
interface Reserved { unsafe: Unsafe, release: () => void }

/** How a pipelined transaction ends: COMMIT sent behind its last statement, or not yet. */
const pendingCommits = new WeakMap<object, { committing: Promise<unknown> | null, send: () => Promise<unknown> }>()

type DrizzleOf = (options: { client: unknown }) => unknown
let drizzleOfClient: Promise<DrizzleOf> | undefined

/**
 * Runs `body` in one transaction on `db`. Pipelined on postgres.js: BEGIN goes
 * with the first statement, COMMIT with the statement passed to commitWith (or
 * after `body` when it passed none).
 */
export async function pipelinedTransaction<T> (db: Db, body: (tx: Tx) => Promise<T>): Promise<T> {
  const client = (db as unknown as { $client: Partial<Pick<Sql, 'reserve' | 'options'>> }).$client
  if (typeof client.reserve !== 'function') return db.transaction(body)
  drizzleOfClient ??= import('drizzle-orm/postgres-js').then((m) => m.drizzle as unknown as DrizzleOf)
  const [drizzle, reserved] = await Promise.all([drizzleOfClient, client.reserve() as unknown as Promise<Reserved>])
  let begun = false
  const unsafe: Unsafe = (text, params, options) => {
    if (!begun) {
      begun = true
      // Its failure (a lost connection) fails the statement behind it too.
      reserved.unsafe('begin').catch(() => {})
    }
    return reserved.unsafe(text, params, options)
  }
  // drizzle reads the pool's options (its type parsers); a reserved connection has none of its own.
  const connection = new Proxy(reserved, {
    get: (target, property) =>
      property === 'unsafe' ? unsafe : property === 'options' ? client.options : Reflect.get(target, property)
  })
  const tx = drizzle({ client: connection }) as Tx
  const sendNotifications = queueNotifications(db, tx)
  const ending = { committing: null as Promise<unknown> | null, send: () => reserved.unsafe('commit') }
  pendingCommits.set(tx, ending)
  try {
    const result = await body(tx)
    if (begun) await (ending.committing ?? ending.send())
    sendNotifications()
    return result
  } catch (err) {
    // After a COMMIT that failed, or behind a failed statement, nothing is open; otherwise end it.
    if (begun && ending.committing === null) await reserved.unsafe('rollback').catch(() => {})
    throw err
  } finally {
    reserved.release()
  }
}

/**
 * The last statement of `tx`: `statement` is sent, and when `tx` is a pipelined
 * transaction its COMMIT right behind it, in the same write. Resolves with the
 * statement's result once both are done (committed). On any other transaction
 * it only awaits the statement (the transaction commits when its body returns).
 */
export async function commitWith<T> (tx: Tx, statement: Promise<T>): Promise<T> {
  const ending = pendingCommits.get(tx)
  if (!ending) return statement
  ending.committing = ending.send()
  const [result] = await Promise.all([statement, ending.committing])
  return result
}

/**
 * Awaits statements sent together (one write on a pipelined transaction, run in
 * the order sent) and gives their results in that order. Every one settles
 * before the first failure is thrown: no statement of the batch is still on
 * its way when the caller ends the transaction. Each must have been sent when
 * its promise was made (runPrepared, with no await before it), or the order is lost.
 */
type Results<T extends readonly unknown[]> = { -readonly [K in keyof T]: Awaited<T[K]> }

export async function pipelined<T extends readonly unknown[]> (statements: readonly [...T]): Promise<Results<T>> {
  const settled = await Promise.allSettled(statements)
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) throw failed.reason
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as Results<T>
}
