// A buyer's purchase of a product with `autoDelivery: stock` (docs/stock.md):
// under the product's lock, the order is created delivered from stock when the
// chosen variant holds enough items, or else as a plain paid order — inside the
// same lock, so an upload that follows sees it among the waiting orders.
import { randomUUID } from 'node:crypto'
import type { StockCipher } from '../domain/stock-cipher.js'
import type { Db, Tx } from './client.js'
import { NO_OPTION } from './schema.js'
import { assignStock, deactivateIfEmpty, lockAndAssign, lockStockProduct, recordStockPurchase, StockBusyError, type PurchaseRecord } from './stock-delivery.js'

/** How often a purchase is tried again when a re-encryption batch held some of the items it needed. */
const BUSY_RETRIES = 5

export interface StockPurchase {
  record: Omit<PurchaseRecord, 'id'>
  /** The buyer's field values: the stock field's value is the chosen option's id. */
  fieldValues: ReadonlyArray<{ fieldId: string, value: string }>
  /** The product's stock field as read before the transaction (checked again under the lock). */
  optionFieldId: string | null
}

/** The variant the buyer chose: the stock field's value (undefined: the buyer chose none). */
function optionKeyOf (optionFieldId: string | null, fieldValues: StockPurchase['fieldValues']): string | undefined {
  return optionFieldId === null ? NO_OPTION : fieldValues.find((f) => f.fieldId === optionFieldId)?.value.trim()
}

/**
 * Runs the purchase in one transaction: delivered from stock when it can be,
 * else `recordPlain` (the ordinary paid purchase) in the same transaction.
 */
export async function purchaseWithStock<Order> (db: Db, cipher: StockCipher, purchase: StockPurchase, recordPlain: (tx: Tx) => Promise<Order>): Promise<Order> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const orderId = randomUUID()
        const quantity = purchase.record.quantity
        const expected = optionKeyOf(purchase.optionFieldId, purchase.fieldValues)
        // One round trip locks the product and takes the items when its settings are still those read before.
        const first = expected === undefined
          ? { product: await lockStockProduct(tx, purchase.record.productId), taken: false, assignment: undefined }
          : await lockAndAssign(tx, cipher, purchase.record.productId, purchase.optionFieldId, { orderId, optionKey: expected, quantity })
        const product = first.product
        if (!product || product.autoDelivery !== 'stock') return recordPlain(tx)
        let assignment = first.assignment
        if (!first.taken) {
          const optionKey = optionKeyOf(product.optionFieldId, purchase.fieldValues)
          if (optionKey === undefined) return recordPlain(tx)
          ;[assignment] = await assignStock(tx, cipher, product, [{ orderId, optionKey, quantity }])
        }
        if (!assignment) return recordPlain(tx)
        await deactivateIfEmpty(tx, product)
        return recordStockPurchase<Order>(tx, { ...purchase.record, id: orderId }, assignment)
      })
    } catch (err) {
      if (!(err instanceof StockBusyError)) throw err
      if (attempt === BUSY_RETRIES) return db.transaction(recordPlain)
    }
  }
}
