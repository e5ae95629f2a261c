// The sales statistics' rollup tables (docs/sales-stats.md): kept by triggers on
// orders and ledger_entries (migration 0014_sales_rollup), read by db/stats/sales.ts.
import { bigint, date, numeric, pgTable, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core'

/** What the sales statistics sum, per bucket (docs/sales-stats.md). */
const salesFigures = () => ({
  orders: bigint('orders', { mode: 'number' }).notNull(),
  /** Ledger rows. */
  entries: bigint('entries', { mode: 'number' }).notNull(),
  quantity: bigint('quantity', { mode: 'number' }).notNull(),
  gross: numeric('gross').notNull(),
  refunded: numeric('refunded').notNull(),
  /** Credits minus debits. */
  credited: numeric('credited').notNull()
})

/**
 * The sales statistics' rollup per product and UTC quarter hour, kept by triggers on
 * orders and ledger_entries in the writer's transaction (custom migration `sales_rollup`,
 * with sales_rollup_days and sales_rollup_shop below).
 */
export const salesRollup = pgTable('sales_rollup', {
  shopId: uuid('shop_id').notNull(),
  productId: uuid('product_id').notNull(),
  bucket: timestamp('bucket', { withTimezone: true }).notNull(),
  ...salesFigures()
}, (t) => [primaryKey({ name: 'sales_rollup_pk', columns: [t.shopId, t.productId, t.bucket] })])

/** The same per product and UTC day. */
export const salesRollupDays = pgTable('sales_rollup_days', {
  shopId: uuid('shop_id').notNull(),
  day: date('day').notNull(),
  productId: uuid('product_id').notNull(),
  ...salesFigures()
}, (t) => [primaryKey({ name: 'sales_rollup_days_pk', columns: [t.shopId, t.day, t.productId] })])

/** The same per shop and UTC quarter hour, of the shop's external products only. */
export const salesRollupShop = pgTable('sales_rollup_shop', {
  shopId: uuid('shop_id').notNull(),
  bucket: timestamp('bucket', { withTimezone: true }).notNull(),
  ...salesFigures()
}, (t) => [primaryKey({ name: 'sales_rollup_shop_pk', columns: [t.shopId, t.bucket] })])
