// What the portal's Stock pages read besides the /v1 calls' answers (docs/portal.md):
// a product's items with their positions (the order they go out in), found by the
// first characters of their preview or, for a whole code, by its keyed hash; and the
// paid orders waiting per product (order_counts, a row per product and status).
import type { StockItemStatus } from '../../domain/stock-rules.js'
import type { Queryable } from '../core/client.js'
import { run } from '../core/sql.js'
import { itemColumns, type StockItem } from '../stock/items.js'

export interface PortalStockItem extends StockItem {
  /** The item's place in the product's stock: 1 for the first code ever added; the lowest goes out first. */
  position: string
}

export interface PortalItemQuery {
  status: StockItemStatus
  /** Items whose preview starts with it (any case): 1 to 4 characters. */
  previewPrefix?: string
  /** Items whose value has one of these keyed hashes (a whole code searched). */
  valueHashes?: Buffer[]
  /** The position of the previous page's last item. */
  before?: string
  limit: number
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** A page of the product's items of one status, newest first, with the cursor of the next (null at the end). */
export async function listPortalStockItems (
  db: Queryable, productId: string, query: PortalItemQuery
): Promise<{ items: PortalStockItem[], nextCursor: string | null }> {
  const rows = await run<PortalStockItem>(db, `select ${itemColumns}, s.position::text as position
    from stock_items s
    where s.product_id = $1 and s.status = $2
      and ($3::text is null or lower(s.preview) like $3::text || '%')
      and ($4::text is null or s.value_hash in (
        select decode(h, 'base64') from jsonb_array_elements_text($4::text::jsonb) h))
      and ($5::bigint is null or s.position < $5::bigint)
    order by s.position desc limit $6`, [
    productId,
    query.status,
    query.previewPrefix === undefined ? null : likeLiteral(query.previewPrefix.toLowerCase()),
    query.valueHashes === undefined ? null : JSON.stringify(query.valueHashes.map((h) => h.toString('base64'))),
    query.before ?? null,
    query.limit + 1
  ])
  const items = rows.slice(0, query.limit)
  return { items, nextCursor: rows.length > query.limit ? items[items.length - 1].position : null }
}

/** The paid orders waiting (never taken) of each of `productIds`; a product without any is absent. */
export async function waitingOrderCounts (db: Queryable, productIds: readonly string[]): Promise<Map<string, number>> {
  if (productIds.length === 0) return new Map()
  const rows = await run<{ productId: string, count: number }>(db, `select product_id as "productId",
      count::int as count
    from order_counts where status = 'paid' and count > 0
      and product_id in (select p::uuid from jsonb_array_elements_text($1::text::jsonb) p)`,
  [JSON.stringify(productIds)])
  return new Map(rows.map((r) => [r.productId, r.count]))
}
