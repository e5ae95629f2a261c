// The statements of a product's stock items (docs/stock.md): insert (sealed,
// duplicates skipped by keyed hash), list (previews only, newest first) and
// remove (the values handed back). Every write runs under the product's lock
// (db/stock/take.ts) in the transaction of services/stock/items.ts, and keeps
// stock_counts exact.
import { isUuid } from '../../domain/ids.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import { ApiError, notFound, validationError } from '../../domain/errors.js'
import type { Queryable, Tx } from '../core/client.js'
import { NO_OPTION, signalsOf, type StockItemStatus } from '../../domain/stock-rules.js'
import {
  deactivateIfEmpty, lockStockProduct, reactivateAfterRestock, recordSignals, type StockProduct
} from './take.js'
import { run } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'

export type { StockItemStatus }

export interface StockItem {
  id: string
  optionId: string | null
  status: StockItemStatus
  orderId: string | null
  preview: string
  createdAt: string
  deliveredAt: string | null
  removedAt: string | null
}

/** An item as the API shows it (stock_items as s). */
export const itemColumns = `id, nullif(option_key, '${NO_OPTION}') as "optionId", status, order_id as "orderId",
  case when preview = '' then '…' else preview || '…' end as preview,
  ${isoTime('created_at')} as "createdAt", ${isoTime('delivered_at')} as "deliveredAt",
  ${isoTime('removed_at')} as "removedAt"`

/** The shop's product locked for a stock write; 404 NOT_FOUND when it is not the shop's. */
export async function lockOwnProduct (tx: Tx, shopId: string, productId: string): Promise<StockProduct> {
  const product = isUuid(productId) ? await lockStockProduct(tx, productId, shopId) : undefined
  if (!product) throw notFound('Product')
  return product
}

/**
 * The option key of items added with `optionId`: required with variants (an option
 * of that field), refused without.
 */
export async function optionKeyFor (tx: Tx, product: StockProduct, optionId: string | undefined): Promise<string> {
  if (product.optionFieldId === null) {
    if (optionId !== undefined) {
      throw validationError('optionId is refused: the stock has no optionFieldId.', [
        { path: 'body.optionId', message: 'must be absent while optionFieldId is null' }
      ])
    }
    return NO_OPTION
  }
  const [option] = optionId !== undefined && isUuid(optionId)
    ? await run(tx, 'select 1 from product_field_options where id = $1 and field_id = $2',
      [optionId, product.optionFieldId])
    : []
  if (!option) {
    throw validationError('optionId must be an option of the stock\'s optionFieldId.', [
      { path: 'body.optionId', message: 'must be an option of the field optionFieldId names' }
    ])
  }
  return optionId!
}

/**
 * The product's highest item position (0 without items), read on its own: one index
 * probe, whatever the planner thinks of the table.
 */
async function lastPosition (tx: Tx, productId: string): Promise<string> {
  const [row] = await run<{ last: string }>(tx,
    'select coalesce(max(position), 0)::text as last from stock_items where product_id = $1', [productId])
  return row.last
}

/** A value sealed for the stock: ciphertext, nonce, key id, keyed hashes (current and previous key) and preview. */
export interface SealedItem { c: string, n: string, k: string, h: string, ph: string | null, p: string }

/**
 * Inserts `rows` in their order as items of `optionKey`; a value equal to an
 * available, delivered or defective item of the product (under the current
 * key's hash or the previous one's) is skipped. Returns how many were added.
 */
export async function insertStockItems (
  tx: Tx, shopId: string, productId: string, optionKey: string, rows: readonly SealedItem[]
): Promise<number> {
  // One index probe per hash, read under the product's lock.
  const held = new Set((await run<{ hash: string }>(tx, `select encode(s.value_hash, 'base64') as hash
    from (select decode(jsonb_array_elements_text($2::text::jsonb), 'base64') as h) q
    join stock_items s on s.product_id = $1 and s.value_hash = q.h
      and s.status in ('available', 'delivered', 'defective')`,
  [productId, JSON.stringify(rows.flatMap((r) => r.ph === null ? [r.h] : [r.h, r.ph]))])).map((r) => r.hash))
  const fresh = rows.filter((r) => !held.has(r.h) && (r.ph === null || !held.has(r.ph)))
  if (fresh.length === 0) return 0
  // Ordered as sent: positions continue the product's own (the product lock makes
  // them unique to it; a sequence's order under INSERT … SELECT is not guaranteed).
  const [{ added }] = await run<{ added: number }>(tx, `with v as (
      select x.ord, decode(x.e->>'c', 'base64') as c, decode(x.e->>'n', 'base64') as n, x.e->>'k' as k,
        decode(x.e->>'h', 'base64') as h, x.e->>'p' as p
      from jsonb_array_elements($4::text::jsonb) with ordinality x(e, ord)
    ), i as (
      insert into stock_items
        (shop_id, product_id, option_key, ciphertext, nonce, key_id, value_hash, preview, position)
      overriding system value
      select $1, $2, $3, v.c, v.n, v.k, v.h, v.p, $5::bigint + v.ord from v
      on conflict (product_id, value_hash) where status in ('available', 'delivered', 'defective') do nothing
      returning 1
    ), c as (
      insert into stock_counts (product_id, option_key, available) select $2, $3, count(*) from i having count(*) > 0
      on conflict (product_id, option_key) do update set available = stock_counts.available + excluded.available,
        updated_at = ${NOW_MS}
    )
    select count(*)::int as added from i`,
  [shopId, productId, optionKey, JSON.stringify(fresh), await lastPosition(tx, productId)])
  return Number(added)
}

export interface ItemListOptions { status?: StockItemStatus, optionId?: string, limit: number, after?: string }

/** A page of the product's items, newest first; `nextCursor` continues after the last (null at the end). */
export async function listStockItems (
  db: Queryable, shopId: string, productId: string, options: ItemListOptions
): Promise<{ items: StockItem[], nextCursor: string | null }> {
  const [product] = isUuid(productId)
    ? await run(db, 'select 1 from products where id = $1 and shop_id = $2', [productId, shopId])
    : []
  if (!product) throw notFound('Product')
  const after = options.after === undefined
    ? null
    : /^[1-9][0-9]{0,17}$/.test(options.after) ? options.after : undefined
  if (after === undefined) {
    throw validationError('after must be a nextCursor of an earlier page.', [
      { path: 'querystring.after', message: 'is not a cursor' }
    ])
  }
  const optionKey = options.optionId === undefined ? null : options.optionId
  // The cursor is the position as text under a name of its own: an output column named
  // `position` would make `order by position` sort the text ('99' after '100').
  const rows = await run<StockItem & { cursor: string }>(db, `select ${itemColumns}, s.position::text as cursor
    from stock_items s
    where s.product_id = $1 and ($2::text is null or s.status = $2::text)
      and ($3::uuid is null or s.option_key = $3::uuid) and ($4::bigint is null or s.position < $4::bigint)
    order by s.position desc limit $5`, [productId, options.status ?? null, optionKey, after, options.limit + 1])
  const page = rows.slice(0, options.limit)
  const nextCursor = rows.length > options.limit ? page[page.length - 1].cursor : null
  return { items: page.map(({ cursor: _cursor, ...item }) => item), nextCursor }
}

/**
 * Removes the items `ids` (all available items of the locked product) and
 * returns them with their values, in the order asked. 404 NOT_FOUND for an id that is no
 * item of the product, else 409 STOCK_ITEM_UNAVAILABLE; nothing removed then.
 */
export async function removeStockItems (
  tx: Tx, cipher: StockCipher, product: StockProduct, ids: readonly string[]
): Promise<Array<StockItem & { value: string }>> {
  const { id: productId, shopId } = product
  const wellFormed = ids.filter(isUuid)
  const found = await run<{ id: string, status: string }>(tx, `select id, status from stock_items
    where product_id = $1 and id = any(array(select jsonb_array_elements_text($2::text::jsonb)::uuid))
    for update`, [productId, JSON.stringify(wellFormed)])
  const statuses = new Map(found.map((f) => [f.id, f.status]))
  const missing = ids.filter((id) => !statuses.has(id.toLowerCase()))
  if (missing.length > 0) {
    throw new ApiError('NOT_FOUND', `No stock item ${missing.slice(0, 10).join(', ')} in this product.`)
  }
  const unavailable = ids.filter((id) => statuses.get(id.toLowerCase()) !== 'available')
  if (unavailable.length > 0) {
    throw new ApiError('STOCK_ITEM_UNAVAILABLE',
      `Stock item ${unavailable.slice(0, 10).join(', ')} is not available (already delivered or removed).`)
  }
  const removed = await run<StockItem & { ciphertext: Buffer, nonce: Buffer, keyId: string }>(tx, `update stock_items
    set status = 'removed', removed_at = ${NOW_MS}
    where product_id = $1 and id = any(array(select jsonb_array_elements_text($2::text::jsonb)::uuid))
    returning ${itemColumns}, ciphertext, nonce, key_id as "keyId"`, [productId, JSON.stringify(wellFormed)])
  const values = new Map(removed.map(({ ciphertext, nonce, keyId, ...item }) => [item.id, {
    ...item,
    value: cipher.decrypt({ ciphertext: Buffer.from(ciphertext), nonce: Buffer.from(nonce), keyId }, productId)
  }]))
  const counts = await run<{ optionKey: string, available: number, taken: number }>(tx, `with r as (
      select option_key, count(*)::int as taken from stock_items
      where product_id = $1 and id = any(array(select jsonb_array_elements_text($2::text::jsonb)::uuid))
      group by option_key
    )
    update stock_counts c set available = c.available - r.taken, removed = c.removed + r.taken, updated_at = ${NOW_MS}
    from r where c.product_id = $1 and c.option_key = r.option_key
    returning c.option_key as "optionKey", c.available, r.taken`, [productId, JSON.stringify(wellFormed)])
  await recordSignals(tx, shopId, counts.flatMap((c) =>
    signalsOf(product, c.optionKey, Number(c.available) + Number(c.taken), Number(c.available), false)))
  await deactivateIfEmpty(tx, product)
  return ids.map((id) => values.get(id.toLowerCase())!)
}

/**
 * A cancel with `restock`: the order's delivered stock items become available
 * again. Runs in the cancel's transaction, after the product's lock and the
 * waiting orders'. Returns the product as it now is when items came back (the
 * cancel then fills the waiting orders), undefined when none did.
 */
export async function returnOrderItems (
  tx: Tx, product: StockProduct, orderId: string
): Promise<StockProduct | undefined> {
  const counts = await run<{ optionKey: string }>(tx, `with r as (
      update stock_items set status = 'available', order_id = null, delivered_at = null, delivered_index = null
      where order_id = $1 and status = 'delivered' returning option_key
    ), g as (select option_key, count(*)::int as n from r group by option_key)
    update stock_counts c set available = c.available + g.n, delivered = c.delivered - g.n, updated_at = ${NOW_MS}
    from g where c.product_id = $2 and c.option_key = g.option_key
    returning c.option_key as "optionKey"`, [orderId, product.id])
  if (counts.length === 0) return undefined
  return reactivateAfterRestock(tx, product)
}
