// The portal's Stock page finding a product's items (docs/portal.md): a search of
// up to 4 characters matches the start of the items' previews (any case); a longer
// one is a whole code, found by its keyed hash under the current and the previous
// key (the value is never decrypted, nor compared in the clear).
import type { FastifyInstance } from 'fastify'
import { notFound } from '../../domain/errors.js'
import type { StockItemStatus } from '../../domain/stock-rules.js'
import { readStock } from '../../db/stock/settings.js'
import { listPortalStockItems } from '../../db/portal/stock.js'

/** How many characters of a code its preview shows. */
const PREVIEW_LENGTH = 4

export interface StockItemSearch {
  status: StockItemStatus
  /** The seller's search ('' for none): the first characters of a code, or a whole code. */
  search: string
  after?: string
  limit: number
}

/** A page of the shop's product's items, newest first; 404 NOT_FOUND for a product that is not the shop's. */
export async function findStockItems (
  app: Pick<FastifyInstance, 'db' | 'stockCipher'>, shopId: string, productId: string, query: StockItemSearch
) {
  if (!(await readStock(app.db, shopId, productId))) throw notFound('Product')
  const search = query.search.trim()
  const cipher = app.stockCipher
  const byValue = [...search].length > PREVIEW_LENGTH && cipher !== null
  const hashes = byValue ? [cipher.hash(search), cipher.previousHash(search)].filter((h) => h !== null) : undefined
  const previewPrefix = [...search].slice(0, PREVIEW_LENGTH).join('')
  return listPortalStockItems(app.db, productId, {
    status: query.status,
    limit: query.limit,
    before: query.after,
    ...(byValue ? { valueHashes: hashes } : search === '' ? {} : { previewPrefix })
  })
}
