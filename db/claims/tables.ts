// The claims table (docs/claims.md): a buyer's report that delivered values do
// not work, and how the shop, the deadline or the operator settled it. At most
// one claim of an order is open or escalated (a partial unique index); the
// deadline sweep reads the open ones by `respondBy` through a partial index.
import { sql } from 'drizzle-orm'
import { index, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { id, orders, products, shops, stamp, ts } from '../tables.js'

export const claims = pgTable('claims', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  orderId: uuid('order_id').notNull().references(() => orders.id),
  productId: uuid('product_id').notNull().references(() => products.id),
  status: text('status').notNull().default('open'),
  reason: text('reason').notNull(),
  text: text('text').notNull(),
  /** The reported positions in the order's deliveredValues, ascending. */
  valueIndexes: jsonb('value_indexes').$type<number[]>().notNull(),
  respondBy: ts('respond_by').notNull(),
  createdAt: stamp('created_at'),
  resolvedAt: ts('resolved_at'),
  escalatedAt: ts('escalated_at'),
  resolutionKind: text('resolution_kind'),
  resolutionBy: text('resolution_by'),
  resolutionNote: text('resolution_note'),
  resolutionAmount: numeric('resolution_amount', { precision: 14, scale: 2 })
}, (t) => [
  uniqueIndex('claims_one_active_idx').on(t.orderId).where(sql`status in ('open', 'escalated')`),
  index('claims_due_idx').on(t.respondBy).where(sql`status = 'open'`),
  index('claims_order_idx').on(t.orderId, t.createdAt),
  index('claims_shop_list_idx').on(t.shopId, t.createdAt.desc(), t.id.desc())
])
