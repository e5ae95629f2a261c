// The operator's side of a claim after the shop answered (docs/claims.md): the
// buyer escalates a seller's rejection, and the operator resolves an escalated
// claim by refund or rejection. One transaction each, under the claim's lock.
import { canEscalate, checkClaimAction, claimInvalidStatus, claimMessages } from '../../domain/claims.js'
import { ApiError } from '../../domain/errors.js'
import type { StoredOrder } from '../orders/row.js'
import type { Db } from '../core/client.js'
import { postMessageInTransaction, postSystemMessage } from '../orders/messages.js'
import { recordClaimEvent } from './events.js'
import { escalateClaimRow, lockClaim } from './lock.js'
import { claimView, type Claim } from './row.js'
import { refundLocked, rejectLocked } from './settle.js'

/** Whether Postgres refused the row with a unique violation (the index of open claims). */
const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505' ||
  (err as { cause?: { code?: string } })?.cause?.code === '23505'

/**
 * The buyer disputes the shop's rejection, within `windowDays` of it: the claim
 * is `escalated` (no deadline) and waits for the shop or the operator. The
 * buyer's `text`, when given, goes to the chat as the buyer's message.
 */
export async function escalateClaim (
  db: Db, claimId: string, text: string | undefined, windowDays: number
): Promise<Claim> {
  try {
    return await db.transaction(async (tx) => {
      const claim = await lockClaim(tx, claimId, null)
      checkClaimAction('escalate', claim.status)
      const now = claim.now
      const resolvedAt = claim.resolvedAt === null ? null : new Date(claim.resolvedAt)
      if (
        !canEscalate({ status: claim.status, resolvedBy: claim.resolutionBy, resolvedAt }, new Date(now), windowDays)
      ) {
        throw new ApiError('CLAIM_INVALID_STATUS', claim.resolutionBy === 'operator'
          ? 'The marketplace\'s rejection is final: the claim cannot be escalated.'
          : `A rejection can be escalated only within ${windowDays} days of it.`)
      }
      const escalated = await escalateClaimRow(tx, claim.id)
      await recordClaimEvent(tx, 'claim.escalated', escalated)
      await postSystemMessage(tx, claim.orderId, claimMessages.escalated())
      if (text !== undefined) await postMessageInTransaction(tx, claim.orderId, 'buyer', text)
      return claimView(escalated)
    })
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError('CLAIM_ALREADY_OPEN', 'The order already has an open or escalated claim.')
    }
    throw err
  }
}

/**
 * The operator settles an escalated claim: `refund` (the order refunded as the shop's refund does) or `reject` (final).
 */
export async function resolveClaim (
  db: Db, claimId: string, outcome: 'refund' | 'reject', note: string | null
): Promise<{ claim: Claim, order?: StoredOrder }> {
  return db.transaction(async (tx) => {
    const claim = await lockClaim(tx, claimId, null)
    if (claim.status !== 'escalated') throw claimInvalidStatus('resolve', claim.status)
    if (outcome === 'reject') {
      return { claim: claimView(await rejectLocked(tx, claim, 'operator', note)) }
    }
    const result = await refundLocked(tx, claim, 'operator', note)
    return { claim: claimView(result.claim), order: result.order }
  })
}
