// A product's stock (docs/stock.md), for the /v1/products/{id}/stock calls and
// the portal's Stock page: the settings changed and the items added and removed
// each in one transaction under the product's lock, which then fills the
// waiting orders (services/orders/fulfilment.ts); the values trimmed and
// checked for NUL, sealed before the lock is taken, the key required.
import type { FastifyInstance } from 'fastify'
import { notFound, ruleOf, validationError } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import { previewOf, type StockCipher } from '../../domain/stock-cipher.js'
import type { StockAddBody, StockItemListQuery, StockPatchBody } from '../../schemas/stock.js'
import {
  insertStockItems, listStockItems, lockOwnProduct, optionKeyFor, removeStockItems, type SealedItem
} from '../../db/stock/items.js'
import { readStock, writeStockSettings, type Stock } from '../../db/stock/settings.js'
import { lockStockProduct, reactivateAfterRestock } from '../../db/stock/take.js'
import { fillWaitingOrders } from '../orders/fulfilment.js'

type StockApp = Pick<FastifyInstance, 'db' | 'stockCipher' | 'requireStockCipher'>

/** The product's stock as the API shows it; 404 NOT_FOUND when the shop has no such product. */
export async function getStock (app: Pick<FastifyInstance, 'db'>, shopId: string, productId: string): Promise<Stock> {
  const stock = await readStock(app.db, shopId, productId)
  if (!stock) throw notFound('Product')
  return stock
}

/**
 * Changes the settings sent. Switching to `stock` fills the waiting orders
 * (with a key: without one nothing is revealed, so they keep waiting).
 * Answers the stock as it now is and the ids of the orders it filled.
 */
export async function updateStock (
  app: StockApp, shopId: string, productId: string, body: StockPatchBody
): Promise<{ stock: Stock, filledOrderIds: string[] }> {
  const cipher = app.stockCipher
  const filledOrderIds = await app.db.transaction(async (tx) => {
    const product = isUuid(productId) ? await lockStockProduct(tx, productId, shopId) : undefined
    if (!product) throw notFound('Product')
    const next = await writeStockSettings(tx, product, body)
    if (cipher && product.autoDelivery !== 'stock' && next.autoDelivery === 'stock') {
      return fillWaitingOrders(tx, cipher, next)
    }
    return []
  })
  return { stock: await getStock(app, shopId, productId), filledOrderIds }
}

/** Each distinct value sealed for the product: the CPU of an upload, done before the product's lock. */
function sealItems (cipher: StockCipher, productId: string, values: readonly string[]): SealedItem[] {
  return [...new Set(values)].map((value) => {
    const encrypted = cipher.encrypt(value, productId)
    return {
      c: encrypted.ciphertext.toString('base64'),
      n: encrypted.nonce.toString('base64'),
      k: encrypted.keyId,
      h: cipher.hash(value).toString('base64'),
      ph: cipher.previousHash(value)?.toString('base64') ?? null,
      p: previewOf(value)
    }
  })
}

/**
 * Adds the values (trimmed) in their order; a value equal to an item the
 * product holds, or repeated in the request, is counted as a duplicate. Then
 * fills the waiting orders. Answers the counts, the ids of the orders filled
 * (oldest first) and the stock as it now is.
 */
export async function addStockItems (app: StockApp, shopId: string, productId: string, body: StockAddBody) {
  const cipher = app.requireStockCipher()
  const values = body.values.map((value) => value.trim())
  const withNul = values.findIndex((value) => value.includes('\0'))
  if (withNul !== -1) {
    throw validationError(`Invalid request: body.values.${withNul} must not contain a NUL character.`, [
      { path: `body.values.${withNul}`, message: 'must not contain a NUL character', rule: ruleOf('x-no-nul', {}) }
    ])
  }
  const rows = sealItems(cipher, productId, values)
  const result = await app.db.transaction(async (tx) => {
    const product = await lockOwnProduct(tx, shopId, productId)
    const optionKey = await optionKeyFor(tx, product, body.optionId)
    const added = await insertStockItems(tx, shopId, productId, optionKey, rows)
    const filled = added > 0 ? await fillWaitingOrders(tx, cipher, await reactivateAfterRestock(tx, product)) : []
    return { added, duplicates: values.length - added, filledOrders: filled.length, filledOrderIds: filled }
  })
  return { ...result, stock: await getStock(app, shopId, productId) }
}

/** A page of the product's items, newest first. */
export function listItems (app: Pick<FastifyInstance, 'db'>, shopId: string, productId: string,
  query: StockItemListQuery) {
  return listStockItems(app.db, shopId, productId, query)
}

/** Removes the available items `ids` and hands their values back, in the order asked. */
export function removeItems (app: StockApp, shopId: string, productId: string, ids: readonly string[]) {
  const cipher = app.requireStockCipher()
  return app.db.transaction(async (tx) =>
    removeStockItems(tx, cipher, await lockOwnProduct(tx, shopId, productId), ids))
}
