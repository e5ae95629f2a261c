// The service's own fulfilment of a product's waiting orders (docs/stock.md):
// after an upload, a restock, a cancel with `restock`, or switching
// `autoDelivery` to `stock`, the paid orders never taken are filled from stock,
// oldest first, each in full or not at all, in the caller's transaction.
import { optionsByLabel, recordedOptionKey } from '../../domain/stock-rules.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Tx } from '../../db/core/client.js'
import { fieldOptions, fulfilWaitingOrders, lockWaitingOrders } from '../../db/orders/fulfilment.js'
import { deactivateIfEmpty, takeStock, type StockDemand, type StockProduct } from '../../db/stock/take.js'

/**
 * Fills the product's waiting orders (paid, never taken), oldest first, each in
 * full or not at all, and records their fulfilment with their events; returns
 * the ids of the orders filled, oldest first (the portal names them). Only with
 * `autoDelivery: stock`. Needs the product's lock.
 */
export async function fillWaitingOrders (tx: Tx, cipher: StockCipher, product: StockProduct): Promise<string[]> {
  if (product.autoDelivery !== 'stock') return []
  const waiting = await lockWaitingOrders(tx, product.id)
  if (waiting.length === 0) return []
  const options = product.optionFieldId === null
    ? new Map<string, string>()
    : optionsByLabel(await fieldOptions(tx, product.optionFieldId))
  const demands: StockDemand[] = []
  for (const order of waiting) {
    const optionKey = recordedOptionKey(product.optionFieldId, order.fieldValues, options)
    if (optionKey !== null) demands.push({ orderId: order.id, optionKey, quantity: order.quantity })
  }
  const takes = await takeStock(tx, cipher, product, demands)
  if (takes.length === 0) return []
  await deactivateIfEmpty(tx, product)
  await fulfilWaitingOrders(tx, cipher, product.shopId, takes)
  return takes.map((take) => take.orderId)
}
