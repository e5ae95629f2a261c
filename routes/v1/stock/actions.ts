// What each /v1/products/{id}/stock call does once its input passed the schema:
// the rules live in db/stock.ts and db/stock-items.ts; here the values are
// trimmed and checked for NUL, the key is required, and a missing product is
// ORDER_NOT_FOUND. Called by the seller API's routes and the portal's Stock page.
import type { FastifyInstance } from 'fastify'
import { readStock, updateStock, type Stock } from '../../../db/stock/settings.js'
import { addStockItems, listStockItems, removeStockItems } from '../../../db/stock/items.js'
import { notFound, validationError } from '../../../domain/errors.js'
import type { StockAddBody, StockItemListQuery, StockPatchBody } from '../../../schemas/stock.js'

export function stockActions (fastify: FastifyInstance) {
  async function get (shopId: string, productId: string): Promise<Stock> {
    const stock = await readStock(fastify.db, shopId, productId)
    if (!stock) throw notFound('Product')
    return stock
  }

  return {
    get,

    update (shopId: string, productId: string, body: StockPatchBody) {
      return updateStock(fastify.db, shopId, productId, body, fastify.stockCipher)
    },

    async add (shopId: string, productId: string, body: StockAddBody) {
      const cipher = fastify.requireStockCipher()
      const values = body.values.map((value) => value.trim())
      const withNul = values.findIndex((value) => value.includes('\0'))
      if (withNul !== -1) {
        throw validationError(`Invalid request: body.values.${withNul} must not contain a NUL character.`, [
          { path: `body.values.${withNul}`, message: 'must not contain a NUL character' }
        ])
      }
      const result = await addStockItems(fastify.db, cipher, shopId, productId, values, body.optionId)
      return { ...result, stock: await get(shopId, productId) }
    },

    list (shopId: string, productId: string, query: StockItemListQuery) {
      return listStockItems(fastify.db, shopId, productId, query)
    },

    remove (shopId: string, productId: string, ids: string[]) {
      return removeStockItems(fastify.db, fastify.requireStockCipher(), shopId, productId, ids)
    }
  }
}
