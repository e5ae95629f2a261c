// The catalog (docs/products.md, docs/media.md): products, categories, currency
// rates and media. A write of a product or a category is one transaction opened
// here around the statements of db/catalog/; a read or a rate is one statement,
// passed on as it is. A rule that spans features goes here, not into db/catalog/.
import type { FastifyInstance } from 'fastify'
import { insertLeafCategory, type Category, type CategoryInput } from '../../db/catalog/categories.js'
import {
  insertProduct, rewriteProduct, setProductArchived, throwIfInvalid, type Product
} from '../../db/catalog/products.js'
import { isUuid } from '../../domain/ids.js'
import { checkKeptIds, checkProductInput } from '../../domain/product-rules.js'
import type { ProductInputBody } from '../../schemas/products.js'

type CatalogApp = Pick<FastifyInstance, 'db'>

/** Creates a product with its fields, options and filters; 400 or 404 naming the input's first problem. */
export async function createProduct (app: CatalogApp, shopId: string, input: ProductInputBody): Promise<Product> {
  throwIfInvalid([...checkProductInput(input), ...checkKeptIds(input.fields, new Map())])
  return app.db.transaction((tx) => insertProduct(tx, shopId, input))
}

/** Full replacement; undefined when the shop has no such product. Field and option ids given in the input are kept. */
export async function replaceProduct (
  app: CatalogApp, shopId: string, id: string, input: ProductInputBody
): Promise<Product | undefined> {
  if (!isUuid(id)) return undefined
  throwIfInvalid(checkProductInput(input))
  return app.db.transaction((tx) => rewriteProduct(tx, shopId, id, input))
}

/** Archives (hidden and inactive) or un-archives (still inactive); undefined when the shop has no such product. */
export async function archiveProduct (
  app: CatalogApp, shopId: string, id: string, archived: boolean
): Promise<Product | undefined> {
  if (!isUuid(id)) return undefined
  return app.db.transaction((tx) => setProductArchived(tx, shopId, id, archived))
}

/** A new leaf category (the operator API); 400 VALIDATION_ERROR when its path clashes with one. */
export function createCategory (app: CatalogApp, input: CategoryInput): Promise<Category> {
  return app.db.transaction((tx) => insertLeafCategory(tx, input))
}

export { getProduct, listExternalProducts, listProducts, type Product } from '../../db/catalog/products.js'
export { listCategories } from '../../db/catalog/categories.js'
export { currencyRateView, listCurrencyRates, upsertCurrencyRate } from '../../db/catalog/currency-rates.js'
export { findMediaFile, insertMedia, mediaFilePath } from '../../db/catalog/media.js'
