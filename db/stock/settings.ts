// A product's stock (docs/stock.md): its settings and counts, read and changed
// (the change's transaction, which fills the waiting orders when `autoDelivery`
// becomes `stock`, is services/stock/service.ts).
import { isUuid } from '../../domain/ids.js'
import { ApiError, validationError } from '../../domain/errors.js'
import type { Queryable, Tx } from '../core/client.js'
import { optionIdOf } from '../../domain/stock-rules.js'
import type { AutoDelivery } from '../../domain/stock-rules.js'
import { stockIsEmpty, type StockProduct } from './take.js'
import { run } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'

export interface Stock {
  productId: string
  autoDelivery: AutoDelivery
  optionFieldId: string | null
  lowStockThreshold: number
  deactivateWhenEmpty: boolean
  deactivatedByStock: boolean
  available: number
  delivered: number
  removed: number
  defective: number
  autoReplace: boolean
  options: Array<{ optionId: string, label: string, available: number }>
  updatedAt: string
}

export interface StockPatch {
  autoDelivery?: AutoDelivery
  optionFieldId?: string | null
  lowStockThreshold?: number
  deactivateWhenEmpty?: boolean
  autoReplace?: boolean
}

/** The product's stock as the API shows it; undefined when the shop has no such product. */
export async function readStock (db: Queryable, shopId: string, productId: string): Promise<Stock | undefined> {
  if (!isUuid(productId)) return undefined
  const [row] = await run<Omit<Stock, 'options'> & { counts: Array<{ optionKey: string, available: number }> }>(db, `
    select p.id as "productId", p.auto_delivery as "autoDelivery", p.stock_option_field_id as "optionFieldId",
      p.low_stock_threshold as "lowStockThreshold", p.deactivate_when_empty as "deactivateWhenEmpty",
      p.deactivated_by_stock as "deactivatedByStock",
      coalesce(sum(c.available), 0)::int as available, coalesce(sum(c.delivered), 0)::int as delivered,
      coalesce(sum(c.removed), 0)::int as removed, coalesce(sum(c.defective), 0)::int as defective,
      p.auto_replace as "autoReplace",
      ${isoTime('greatest(p.stock_updated_at, max(c.updated_at))')} as "updatedAt",
      coalesce(jsonb_agg(jsonb_build_object('optionKey', c.option_key, 'available', c.available))
        filter (where c.option_key is not null), '[]') as counts
    from products p left join stock_counts c on c.product_id = p.id
    where p.id = $1 and p.shop_id = $2 group by p.id`, [productId, shopId])
  if (!row) return undefined
  const { counts, ...stock } = row
  let options: Stock['options'] = []
  if (stock.optionFieldId !== null) {
    const available = new Map(counts.map((c) => [c.optionKey, c.available]))
    const rows = await run<{ id: string, label: string }>(db,
      'select id, label from product_field_options where field_id = $1 order by position', [stock.optionFieldId])
    options = rows.map((o) => ({ optionId: o.id, label: o.label, available: available.get(o.id) ?? 0 }))
  }
  return { ...stock, options }
}

/** Checks that `fieldId` is a required, single-choice select field of the product (400 otherwise). */
async function checkOptionField (tx: Tx, productId: string, fieldId: string): Promise<void> {
  const [field] = isUuid(fieldId)
    ? await run<{ type: string, required: boolean, multiple: boolean }>(tx,
      'select type, required, multiple from product_fields where id = $1 and product_id = $2', [fieldId, productId])
    : []
  if (!field || field.type !== 'select' || !field.required || field.multiple) {
    throw validationError(
      'optionFieldId must be the id of one of the product\'s select fields that is required and not multiple.',
      [{ path: 'body.optionFieldId', message: 'must be a required, single-choice select field of this product' }]
    )
  }
}

/**
 * Writes the settings sent to the locked `product` and returns it as it now is.
 * `optionFieldId` changes only while nothing is available (409 STOCK_NOT_EMPTY).
 */
export async function writeStockSettings (tx: Tx, product: StockProduct, patch: StockPatch): Promise<StockProduct> {
  const productId = product.id
  if (patch.optionFieldId !== undefined && patch.optionFieldId !== product.optionFieldId) {
    if (patch.optionFieldId !== null) await checkOptionField(tx, productId, patch.optionFieldId)
    if (!await stockIsEmpty(tx, productId)) {
      throw new ApiError('STOCK_NOT_EMPTY')
    }
  }
  const next: StockProduct = {
    ...product,
    autoDelivery: patch.autoDelivery ?? product.autoDelivery,
    optionFieldId: patch.optionFieldId === undefined ? product.optionFieldId : patch.optionFieldId,
    lowStockThreshold: patch.lowStockThreshold ?? product.lowStockThreshold,
    deactivateWhenEmpty: patch.deactivateWhenEmpty ?? product.deactivateWhenEmpty
  }
  await run(tx, `update products set auto_delivery = $2, stock_option_field_id = $3, low_stock_threshold = $4,
    deactivate_when_empty = $5, auto_replace = coalesce($6, auto_replace), stock_updated_at = ${NOW_MS}
    where id = $1`,
  [productId, next.autoDelivery, next.optionFieldId, next.lowStockThreshold, next.deactivateWhenEmpty,
    patch.autoReplace ?? null])
  return next
}

/**
 * The stock's rules a product replacement must keep (docs/stock.md):
 * the variant field stays a required, single-choice select, and keeps every
 * option that still holds available items. Problems as error details.
 */
export async function stockFieldProblems (
  tx: Tx, productId: string,
  fields: ReadonlyArray<{
    id?: string, type: string, required: boolean, multiple: boolean, options: ReadonlyArray<{ id?: string }>
  }>
) {
  const [product] = await run<{ fieldId: string | null }>(tx,
    'select stock_option_field_id as "fieldId" from products where id = $1', [productId])
  if (!product?.fieldId) return []
  const index = fields.findIndex((f) => f.id === product.fieldId)
  const field = fields[index]
  if (!field || field.type !== 'select' || !field.required || field.multiple) {
    return [{
      path: index === -1 ? 'body.fields' : `body.fields.${index}`,
      message:
        `must keep field ${product.fieldId} (the stock's optionFieldId) as a required, single-choice select field`
    }]
  }
  const held = await run<{ optionKey: string }>(tx,
    'select option_key as "optionKey" from stock_counts where product_id = $1 and available > 0', [productId])
  const kept = new Set(field.options.map((o) => o.id))
  return held.filter((h) => !kept.has(h.optionKey)).map((h) => ({
    path: `body.fields.${index}.options`,
    message: `must keep option ${optionIdOf(h.optionKey)}: it still holds available stock items`
  }))
}
