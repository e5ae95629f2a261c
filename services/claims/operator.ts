// The operator's side of a claim after the shop answered (docs/claims.md): the
// buyer escalates a seller's rejection, and the operator resolves an escalated
// claim by refund or rejection. One transaction each, under the claim's lock.
import type { FastifyInstance } from 'fastify'
import {
  canEscalate, checkClaimAction, claimAlreadyOpen, claimInvalidStatus, claimMessages, claimText, MAX_CLAIM_NOTE,
  type OperatorOutcome
} from '../../domain/claims.js'
import { revealOrder } from '../../domain/delivered-values.js'
import { ApiError } from '../../domain/errors.js'
import { isUniqueViolation } from '../../db/core/sql.js'
import { recordClaimEvent } from '../../db/claims/events.js'
import { escalateClaimRow, lockClaim } from '../../db/claims/lock.js'
import { claimView, type Claim } from '../../db/claims/row.js'
import { postMessageInTransaction, postSystemMessage } from '../../db/orders/messages.js'
import { refundLocked, rejectLocked } from './settle.js'

/**
 * The buyer disputes the shop's rejection, within `CLAIM_WINDOW_DAYS` of it: the claim
 * is `escalated` (no deadline) and waits for the shop or the operator. The
 * buyer's `text`, when given, goes to the chat as the buyer's message.
 */
export async function escalateClaim (
  app: Pick<FastifyInstance, 'db' | 'config'>, claimId: string, text: string | undefined
): Promise<Claim> {
  const windowDays = app.config.CLAIM_WINDOW_DAYS
  try {
    return await app.db.transaction(async (tx) => {
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
    if (isUniqueViolation(err)) throw claimAlreadyOpen()
    throw err
  }
}

/**
 * The operator settles an escalated claim: `refund` (the order refunded as the
 * shop's refund does) or `reject` (final), with its optional note.
 */
export async function resolveClaim (
  app: Pick<FastifyInstance, 'db' | 'stockCipher'>, claimId: string, outcome: OperatorOutcome, rawNote?: string
) {
  const note = rawNote === undefined ? null : claimText(rawNote, 'body.note', MAX_CLAIM_NOTE)
  const result = await app.db.transaction(async (tx) => {
    const claim = await lockClaim(tx, claimId, null)
    if (claim.status !== 'escalated') throw claimInvalidStatus('resolve', claim.status)
    if (outcome === 'reject') return { claim: await rejectLocked(tx, claim, 'operator', note), order: undefined }
    return refundLocked(tx, claim, 'operator', note)
  })
  const order = result.order === undefined ? undefined : revealOrder(result.order, app.stockCipher)
  return { claim: claimView(result.claim), order }
}
