// The shop's answers to a claim (docs/claims.md) — replace, refund, reject —
// each one transaction with its order change, ledger rows, stock changes,
// events and chat message; the operator's resolve and the deadline settle with
// the same steps (refundLocked, rejectLocked). The order of locks is the claim,
// the product, the order, the shop (db/claims/order-writes.ts); a second action
// on the claim waits for the first and is refused with 409 CLAIM_INVALID_STATUS.
import type { FastifyInstance } from 'fastify'
import {
  checkClaimAction, checkReplacementValues, claimMessages, claimText, MAX_CLAIM_NOTE, replacedValues,
  type ResolvedBy
} from '../../domain/claims.js'
import { revealOrder } from '../../domain/delivered-values.js'
import { ApiError } from '../../domain/errors.js'
import { orderTransitions } from '../../domain/order-transitions.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { StockSignal } from '../../domain/stock-rules.js'
import type { RefundClaimBody, RejectClaimBody, ReplaceClaimBody } from '../../schemas/claims.js'
import type { Db, Tx } from '../../db/core/client.js'
import { commitWith, pipelined, pipelinedTransaction } from '../../db/core/pipelined-transaction.js'
import { recordClaimEvent } from '../../db/claims/events.js'
import { lockClaim, settleClaim, type LockedClaim } from '../../db/claims/lock.js'
import {
  claimedValues, lockClaimedOrder, refundClaimedOrder, replaceOrderValues,
  type ClaimedOrder
} from '../../db/claims/order-writes.js'
import { claimView, type Claim, type ClaimRow } from '../../db/claims/row.js'
import {
  markDefective, orderOptionKey, reportedItems, takeReplacements, type ReportedItem
} from '../../db/claims/stock.js'
import { postSystemMessage } from '../../db/orders/messages.js'
import type { StoredOrder } from '../../db/orders/row.js'
import {
  deactivateIfEmpty, lockStockProduct, recordSignals, StockBusyError, type StockProduct
} from '../../db/stock/take.js'

/** How often a replacement is tried again when a re-encryption batch held items it needed. */
const BUSY_RETRIES = 5

type Transaction = <T>(db: Db, work: (tx: Tx) => Promise<T>) => Promise<T>
const plainTransaction: Transaction = (db, work) => db.transaction(work)

/**
 * Runs `work` in a transaction (`transaction`: db.transaction unless given), again
 * when the stock take met items locked by a re-encryption.
 */
export async function inClaimTransaction<T> (
  db: Db, work: (tx: Tx) => Promise<T>, transaction: Transaction = plainTransaction
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await transaction(db, work)
    } catch (err) {
      if (!(err instanceof StockBusyError) || attempt === BUSY_RETRIES) throw err
    }
  }
}

interface LockedForChange { product: StockProduct, order: ClaimedOrder, reported: ReportedItem[] }

/**
 * The claim's product and order locked in that order, and the stock items of
 * its reported positions: three statements sent together.
 */
async function lockForChange (tx: Tx, claim: ClaimRow): Promise<LockedForChange> {
  const [product, order, reported] = await pipelined([
    lockStockProduct(tx, claim.productId), lockClaimedOrder(tx, claim.orderId),
    reportedItems(tx, claim.orderId, claim.valueIndexes)
  ])
  return { product: product!, order: order!, reported }
}

export interface ReplaceInput { values?: string[], cipher: StockCipher | null, by: ResolvedBy }

/** Wraps the last statement of a claim's transaction: commitWith when the transaction ends with it. */
type Last = <T>(statement: Promise<T>) => Promise<T>
const notLast: Last = (statement) => statement

/**
 * Replaces the reported values of a claim already locked and allowed: the
 * seller's `values`, or items taken from stock. The reported stock items
 * become defective; `order.updated` then `claim.resolved`. In four round
 * trips after the claim's lock: the product and the order locked with the
 * reported items read, the take (and the option's read when the order's items
 * do not tell it), then every write together (`last` wraps the final one).
 */
export async function replaceLocked (
  tx: Tx, claim: ClaimRow, input: ReplaceInput, last: Last = notLast
): Promise<{ claim: ClaimRow, order: StoredOrder }> {
  const indexes = claim.valueIndexes
  checkReplacementValues(input.values ?? indexes.map(() => ''), indexes.length)
  const { product, order, reported } = await lockForChange(tx, claim)
  if (!orderTransitions.refund.from.includes(order.status)) {
    throw new ApiError('ORDER_INVALID_STATUS', `Cannot replace values of an order that is ${order.status}.`)
  }
  let values = input.values
  let signals: StockSignal[] = []
  if (values === undefined) {
    if (!input.cipher) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'Stock values cannot be read: VALUES_ENCRYPTION_KEY is not set.')
    }
    const taken = await takeReplacements(tx, input.cipher, product, order.id,
      await orderOptionKey(tx, product, order.fieldValues, reported), indexes)
    values = taken.values
    signals = taken.signals
  }
  const replaced = replacedValues(claimedValues(order, input.cipher), indexes, values)
  const settlement = { kind: 'replaced', by: input.by, note: null, amount: null, now: order.now } as const
  const { settled, written } = settleClaim(tx, claim, settlement)
  const [updated] = await pipelined([
    replaceOrderValues(tx, order.id, replaced, input.cipher, {
      message: claimMessages.replaced(input.by, indexes.length), claim: claimView(settled)
    }),
    input.values === undefined ? deactivateIfEmpty(tx, product) : undefined,
    markDefective(tx, product.id, reported),
    written,
    last(recordSignals(tx, product.shopId, signals))
  ])
  return { claim: settled, order: updated }
}

/**
 * Refunds the order of a claim already locked and allowed: cancelled, `refund`
 * (and from completed `debit`) rows; the reported stock items become
 * defective; `order.cancelled` then `claim.resolved`. An order cancelled
 * meanwhile is refused (409 ORDER_INVALID_STATUS) unless `closeCancelled`
 * (the deadline): then the claim closes as refunded with no second refund.
 */
export async function refundLocked (
  tx: Tx, claim: ClaimRow, by: ResolvedBy, note: string | null, closeCancelled = false
): Promise<{ claim: ClaimRow, order: StoredOrder | undefined }> {
  const { product, order, reported } = await lockForChange(tx, claim)
  const refunded = await refundClaimedOrder(tx, order.id)
  if (!refunded && !closeCancelled) {
    throw new ApiError('ORDER_INVALID_STATUS', 'Cannot refund an order that ' +
    `is ${order.status}.`)
  }
  const amount = refunded ? order.amount : null
  const { settled, written } = settleClaim(tx, claim, { kind: 'refunded', by, note, amount, now: order.now })
  await pipelined([
    refunded ? markDefective(tx, product.id, reported) : undefined,
    written,
    recordClaimEvent(tx, 'claim.resolved', settled),
    postSystemMessage(tx, order.id, claimMessages.refunded(by))
  ])
  return { claim: settled, order: refunded }
}

/** The shop rejects an open claim, with its note. */
export async function rejectLocked (
  tx: Tx, claim: LockedClaim, by: ResolvedBy, note: string | null
): Promise<ClaimRow> {
  const { settled, written } = settleClaim(tx, claim, { kind: 'rejected', by, note, amount: null, now: claim.now })
  await pipelined([
    written,
    recordClaimEvent(tx, 'claim.resolved', settled),
    postSystemMessage(tx, claim.orderId, claimMessages.rejected(by))
  ])
  return settled
}

type ClaimApp = Pick<FastifyInstance, 'db' | 'stockCipher' | 'requireStockCipher'>

/**
 * The shop replaces the reported values: with `values`, or taken from stock
 * (which reveals values: that needs the key, 503 naming it otherwise).
 */
export async function replaceClaim (
  app: ClaimApp, shopId: string, claimId: string, body: ReplaceClaimBody
) {
  const values = body?.values
  const cipher = values === undefined ? app.requireStockCipher() : app.stockCipher
  const result = await inClaimTransaction(app.db, async (tx) => {
    const claim = await lockClaim(tx, claimId, { shopId })
    checkClaimAction('replace', claim.status)
    return replaceLocked(tx, claim, { values, cipher, by: 'seller' }, (last) => commitWith(tx, last))
  }, pipelinedTransaction)
  return { claim: claimView(result.claim), order: revealOrder(result.order, app.stockCipher) }
}

/** The shop refunds the claim's order, with its optional note. */
export async function refundClaim (
  app: ClaimApp, shopId: string, claimId: string, body: RefundClaimBody
) {
  const note = body?.note === undefined ? null : claimText(body.note, 'body.note', MAX_CLAIM_NOTE)
  const result = await app.db.transaction(async (tx) => {
    const claim = await lockClaim(tx, claimId, { shopId })
    checkClaimAction('refund', claim.status)
    return refundLocked(tx, claim, 'seller', note)
  })
  return { claim: claimView(result.claim), order: revealOrder(result.order!, app.stockCipher) }
}

/** The shop rejects the claim with the note the buyer reads. */
export async function rejectClaim (
  app: ClaimApp, shopId: string, claimId: string, body: RejectClaimBody
): Promise<{ claim: Claim }> {
  const note = claimText(body.note, 'body.note', MAX_CLAIM_NOTE)
  const rejected = await app.db.transaction(async (tx) => {
    const claim = await lockClaim(tx, claimId, { shopId })
    checkClaimAction('reject', claim.status)
    return rejectLocked(tx, claim, 'seller', note)
  })
  return { claim: claimView(rejected) }
}
