// Opening a claim (docs/claims.md), the operator relaying the buyer: one
// transaction under the order's row lock (concurrent openings of one order
// queue there; the partial unique index on open claims backs it up), with
// `claim.opened` and the chat message, and — with the stock's `autoReplace`,
// once per order — the replacement from stock in the same transaction.
import {
  checkClaimable, checkClaimCount, claimMessages, claimText, MAX_CLAIM_TEXT, reportedIndexes,
  type ClaimReason, type ClaimStatus
} from '../../domain/claims.js'
import { ApiError, notFound } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Db, Tx } from '../core/client.js'
import { run } from '../core/sql.js'
import { NOW_MS } from '../core/time.js'
import { claimedValues, lockClaimedOrder } from '../orders/claim-writes.js'
import { postSystemMessage } from '../orders/messages.js'
import { lockStockProduct, type StockProduct } from '../stock/take.js'
import { recordClaimEvent } from './events.js'
import { claimColumns, claimView, type Claim, type ClaimRow } from './row.js'
import { inClaimTransaction, replaceLocked } from './settle.js'
import { reportedItems } from './stock.js'

export interface OpenClaimInput { reason: ClaimReason, text: string, valueIndexes?: number[] }
export interface ClaimSettings { responseSeconds: number, windowDays: number }

const claimAlreadyOpen = () => new ApiError('CLAIM_ALREADY_OPEN', 'The order already has an open or escalated claim.')

/** Whether Postgres refused the row with a unique violation (the index of open claims). */
const isUniqueViolation = (err: unknown) => (err as { code?: string, cause?: { code?: string } })?.code === '23505' ||
  (err as { cause?: { code?: string } })?.cause?.code === '23505'

/**
 * With `autoReplace` (read again under the lock), the product locked first
 * (the lock order: product, then order); else nothing is locked.
 */
async function autoReplaceProduct (
  tx: Tx, orderId: string, cipher: StockCipher | null
): Promise<StockProduct | undefined> {
  if (!cipher) return undefined
  const read = (id: string | null) => run<{ productId: string, autoReplace: boolean }>(tx,
    `select p.id as "productId", p.auto_replace as "autoReplace"
    from products p where p.id = coalesce($2::uuid, (select product_id from orders where id = $1))`, [orderId, id])
  const [pre] = await read(null)
  if (!pre?.autoReplace) return undefined
  const product = await lockStockProduct(tx, pre.productId)
  const [locked] = await read(pre.productId)
  return locked.autoReplace ? product : undefined
}

/** Whether this order was already replaced automatically once. */
async function autoReplacedBefore (tx: Tx, orderId: string): Promise<boolean> {
  const [row] = await run(tx, "select 1 from claims where order_id = $1 and resolution_kind = 'replaced' and " +
    "resolution_by = 'auto' limit 1", [orderId])
  return row !== undefined
}

/**
 * Opens a claim on the order; 404 ORDER_NOT_FOUND, 409 ORDER_INVALID_STATUS,
 * CLAIM_ALREADY_OPEN or CLAIM_LIMIT, 400 for bad positions or text.
 */
export async function openClaim (
  db: Db, orderId: string, input: OpenClaimInput, settings: ClaimSettings, cipher: StockCipher | null
): Promise<Claim> {
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
      }, now, settings.windowDays)
      checkClaimCount(await run<{ status: ClaimStatus }>(tx, 'select status from claims where order_id = ' +
        '$1', [orderId]))
      const indexes = reportedIndexes(input.valueIndexes, deliveredCount)
      const [opened] = await run<ClaimRow>(tx, `with c as (
          insert into claims (shop_id, order_id, product_id, reason, text, value_indexes, respond_by, created_at)
          values ($1, $2, $3, $4, $5, $6::text::jsonb, ${NOW_MS} + make_interval(secs => $7::int), ${NOW_MS})
            returning *
        ) select ${claimColumns('c', 'o')} from c join orders o on o.id = c.order_id`,
      [order.shopId, orderId, order.productId, input.reason, text, JSON.stringify(indexes), settings.responseSeconds])
      await recordClaimEvent(tx, 'claim.opened', opened)
      await postSystemMessage(tx, orderId, claimMessages.opened(indexes.length))
      if (!product || indexes.length === 0 || await autoReplacedBefore(tx, orderId)) return claimView(opened)
      // Only when every reported value came from this product's stock, and only when the stock holds enough.
      if ((await reportedItems(tx, orderId, indexes)).length !== indexes.length) return claimView(opened)
      const [{ enough }] = await run<{ enough: boolean }>(tx,
        `select coalesce(sum(available), 0) >= $3 as enough from stock_counts
        where product_id = $1 and option_key = (select option_key from stock_items where order_id = $2 and
          status = 'delivered'
          and delivered_index = $4)`, [product.id, orderId, indexes.length, indexes[0]])
      if (!enough) return claimView(opened)
      return claimView((await replaceLocked(tx, opened, { cipher, by: 'auto' })).claim)
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw claimAlreadyOpen()
    throw err
  }
}
