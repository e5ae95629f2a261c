// A buyer's purchase of a product with `autoDelivery: stock` (docs/stock.md):
// under the product's lock, the order is created delivered from stock when the
// chosen variant holds enough items, or else as a plain paid order — inside the
// same lock, so an upload that follows sees it among the waiting orders.
import { randomUUID } from 'node:crypto'
import type { StockCipher } from '../domain/stock-cipher.js'
import type { Db, Tx } from './client.js'
import { NO_OPTION } from './schema.js'
import { assignStock, deactivateIfEmpty, lockStockProduct, recordStockPurchase, StockBusyError, type PurchaseRecord } from './stock-delivery.js'

/** How often a purchase is tried again when a re-encryption batch held some of the items it needed. */
const BUSY_RETRIES = 5

export interface StockPurchase {
  record: Omit<PurchaseRecord, 'id'>
  /** The buyer's field values: the stock field's value is the chosen option's id. */
  fieldValues: ReadonlyArray<{ fieldId: string, value: string }>
}

/**
 * Runs the purchase in one transaction: delivered from stock when it can be,
 * else `recordPlain` (the ordinary paid purchase) in the same transaction.
 */
export async function purchaseWithStock<Order> (db: Db, cipher: StockCipher, purchase: StockPurchase, recordPlain: (tx: Tx) => Promise<Order>): Promise<Order> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const product = await lockStockProduct(tx, purchase.record.productId)
        if (!product || product.autoDelivery !== 'stock') return recordPlain(tx)
        const optionKey = product.optionFieldId === null
          ? NO_OPTION
          : purchase.fieldValues.find((f) => f.fieldId === product.optionFieldId)?.value.trim()
        if (optionKey === undefined) return recordPlain(tx)
        const orderId = randomUUID()
        const [assignment] = await assignStock(tx, cipher, product, [{ orderId, optionKey, quantity: purchase.record.quantity }])
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
