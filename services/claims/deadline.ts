// The deadline (docs/claims.md): an open claim whose `respondBy` passed is
// refunded (`by: auto`) exactly once. Every instance sweeps periodically
// (plugins/claim-deadlines.ts); each claim is taken with FOR UPDATE SKIP LOCKED
// in its own transaction, so two instances never take the same one, and one
// that dies mid-way rolls back and leaves the claim due for the next sweep.
import type { Db } from '../../db/core/client.js'
import { lockDueClaim } from '../../db/claims/deadline.js'
import { refundLocked } from './settle.js'

/** Refunds one due claim, if any is free; returns whether it did. */
async function refundOneDue (db: Db): Promise<boolean> {
  return db.transaction(async (tx) => {
    const claim = await lockDueClaim(tx)
    if (!claim) return false
    await refundLocked(tx, claim, 'auto', null, true)
    return true
  })
}

/** Refunds due claims until none is left or `max` were done; returns how many. */
export async function refundDueClaims (db: Db, max: number): Promise<number> {
  let done = 0
  while (done < max && await refundOneDue(db)) done++
  return done
}
