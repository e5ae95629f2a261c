// Opening a claim (docs/claims.md), the operator relaying the buyer: one
// transaction under the order's row lock (concurrent openings of one order
// queue there; the partial unique index on open claims backs it up), with
// `claim.opened` and the chat message, and — with the stock's `autoReplace`,
// once per order — the replacement from stock in the same transaction.
import type { FastifyInstance } from 'fastify'
import {
  checkClaimable, checkClaimCount, claimAlreadyOpen, claimMessages, claimText, MAX_CLAIM_TEXT, reportedIndexes,
  type ClaimReason
} from '../../domain/claims.js'
import { notFound } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Tx } from '../../db/core/client.js'
import { isUniqueViolation } from '../../db/core/sql.js'
import { recordClaimEvent } from '../../db/claims/events.js'
import {
  autoReplacedBefore, claimsOfOrder, insertClaim, readAutoReplace, stockCoversReplacement
} from '../../db/claims/open.js'
import { claimedValues, lockClaimedOrder } from '../../db/claims/order-writes.js'
import { claimView, type Claim } from '../../db/claims/row.js'
import { reportedItems } from '../../db/claims/stock.js'
import { postSystemMessage } from '../../db/orders/messages.js'
import { lockStockProduct, type StockProduct } from '../../db/stock/take.js'
import { inClaimTransaction, replaceLocked } from './settle.js'

export interface OpenClaimInput { reason: ClaimReason, text: string, valueIndexes?: number[] }

/**
 * With `autoReplace` (read again under the lock), the product locked first
 * (the lock order: product, then order); else nothing is locked.
 */
async function autoReplaceProduct (
  tx: Tx, orderId: string, cipher: StockCipher | null
): Promise<StockProduct | undefined> {
  if (!cipher) return undefined
  const pre = await readAutoReplace(tx, orderId, null)
  if (!pre?.autoReplace) return undefined
  const product = await lockStockProduct(tx, pre.productId)
  const locked = await readAutoReplace(tx, orderId, pre.productId)
  return locked?.autoReplace ? product : undefined
}

/**
 * Opens a claim on the order; 404 ORDER_NOT_FOUND, 409 ORDER_INVALID_STATUS,
 * CLAIM_ALREADY_OPEN or CLAIM_LIMIT, 400 for bad positions or text.
 */
export async function openClaim (
  app: Pick<FastifyInstance, 'db' | 'stockCipher' | 'config'>, orderId: string, input: OpenClaimInput
): Promise<Claim> {
  const { db, stockCipher: cipher, config } = app
  const text = claimText(input.text, 'body.text', MAX_CLAIM_TEXT)
  if (!isUuid(orderId)) throw notFound('Order')
  try {
    return await inClaimTransaction(db, async (tx) => {
      const product = await autoReplaceProduct(tx, orderId, cipher)
      const order = await lockClaimedOrder(tx, orderId)
      if (!order) throw notFound('Order')
      const now = new Date(order.now)
      const deliveredCount = claimedValues(order, cipher).length
      checkClaimable({
        status: order.status,
        deliveredAt: order.deliveredAt === null ? null : new Date(order.deliveredAt),
        deliveredCount
      }, now, config.CLAIM_WINDOW_DAYS)
      checkClaimCount(await claimsOfOrder(tx, orderId))
      const indexes = reportedIndexes(input.valueIndexes, deliveredCount)
      const opened = await insertClaim(tx, {
        shopId: order.shopId,
        orderId,
        productId: order.productId,
        reason: input.reason,
        text,
        valueIndexes: indexes,
        responseSeconds: config.CLAIM_RESPONSE_SECONDS
      })
      await recordClaimEvent(tx, 'claim.opened', opened)
      await postSystemMessage(tx, orderId, claimMessages.opened(indexes.length))
      if (!product || indexes.length === 0 || await autoReplacedBefore(tx, orderId)) return claimView(opened)
      // Only when every reported value came from this product's stock, and only when the stock holds enough.
      if ((await reportedItems(tx, orderId, indexes)).length !== indexes.length) return claimView(opened)
      if (!await stockCoversReplacement(tx, product.id, orderId, indexes[0], indexes.length)) return claimView(opened)
      return claimView((await replaceLocked(tx, opened, { cipher, by: 'auto' })).claim)
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw claimAlreadyOpen()
    throw err
  }
}
