// Uploading a stock of any size (docs/stock.md): the service takes 1–10 000
// values a call, so `addStock` sends a big list in calls of 10 000, each with its
// own Idempotency-Key (kept across the client's retries), and adds up the results.
import type { components } from './schema.js'
import type { SellerClient } from './seller-client.js'
import { unwrap } from './unwrap.js'

export const STOCK_VALUES_PER_CALL = 10_000

export type Stock = components['schemas']['Stock']
export interface AddStockResult { added: number, duplicates: number, filledOrders: number, stock: Stock | null }

/** Adds `values` to a product's stock (of `optionId` when it has variants), in order, in calls of 10 000. */
export async function addStock (
  client: SellerClient, productId: string, values: readonly string[], options: { optionId?: string } = {}
): Promise<AddStockResult> {
  const total: AddStockResult = { added: 0, duplicates: 0, filledOrders: 0, stock: null }
  for (let start = 0; start < values.length; start += STOCK_VALUES_PER_CALL) {
    const chunk = values.slice(start, start + STOCK_VALUES_PER_CALL)
    const result = await unwrap(client.POST('/v1/products/{id}/stock/items', {
      params: { path: { id: productId } },
      body: options.optionId === undefined ? { values: chunk } : { values: chunk, optionId: options.optionId }
    }))
    total.added += result.added
    total.duplicates += result.duplicates
    total.filledOrders += result.filledOrders
    total.stock = result.stock
  }
  return total
}
