// The database schema (drizzle). `npm run db:generate` turns changes here into
// a committed SQL migration under db/migrations; the service applies them on start.
import type { SystemMessage } from '../domain/system-messages.js'
import { relations, sql } from 'drizzle-orm'
import {
  bigint, boolean, check, customType, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp,
  uniqueIndex, uuid
} from 'drizzle-orm/pg-core'
import { nowMs } from './core/time.js'
// The variant key of items without variants, where the stock tables' rules are kept (domain/stock-rules.ts).
export { NO_OPTION } from '../domain/stock-rules.js'
// Types only: the values a text column holds, as the API's schemas enumerate them.
import type { CategoryFilterType } from '../schemas/catalog.js'
import type { EmployeeRewardType, FieldType } from '../schemas/products.js'
import type { StoredValues } from '../domain/delivered-values.js'

/** Millisecond timestamps: the API speaks milliseconds, so the database stores exactly that. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 })
export const stamp = (name: string) => ts(name).notNull().default(nowMs)
/** Money with two decimals, read back as an exact decimal string. */
const money = (name: string) => numeric(name, { precision: 14, scale: 2 })
export const id = () => uuid('id').primaryKey().default(sql`gen_random_uuid()`)

const bytea = customType<{ data: Buffer, driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.isBuffer(value) ? value : Buffer.from(value)
})

export const shops = pgTable('shops', {
  id: id(),
  name: text('name').notNull(),
  createdAt: stamp('created_at'),
  /**
   * The seq of the shop's newest event. Taken with `+ 1` under the shop row's lock,
   * which is held until commit, so seq order is the shop's commit order.
   */
  eventSeq: bigint('event_seq', { mode: 'number' }).notNull().default(0),
  /**
   * Retention watermark: the highest seq the cleanup has deleted (0: none). Raised
   * in the same transaction as the delete, so a cursor below it is exactly one
   * that has lost events (410 CURSOR_EXPIRED).
   */
  eventPrunedSeq: bigint('event_pruned_seq', { mode: 'number' }).notNull().default(0),
  /** Raised by every change of the shop's chat rules: keys the keyword matchers cached per instance. */
  chatRulesVersion: bigint('chat_rules_version', { mode: 'number' }).notNull().default(0)
})

export const apiKeys = pgTable('api_keys', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull(),
  prefix: text('prefix').notNull(),
  createdAt: stamp('created_at'),
  lastUsedAt: ts('last_used_at'),
  revokedAt: ts('revoked_at')
}, (t) => [
  uniqueIndex('api_keys_key_hash_idx').on(t.keyHash),
  index('api_keys_shop_idx').on(t.shopId, t.createdAt)
])

export const categories = pgTable('categories', {
  id: id(),
  pathRu: text('path_ru').notNull(),
  pathEn: text('path_en').notNull(),
  createdAt: stamp('created_at')
}, (t) => [uniqueIndex('categories_path_en_idx').on(t.pathEn)])

export const categoryFilters = pgTable('category_filters', {
  id: id(),
  categoryId: uuid('category_id').notNull().references(() => categories.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
  name: text('name').notNull(),
  type: text('type').$type<CategoryFilterType>().notNull(),
  affectsPrice: boolean('affects_price').notNull()
}, (t) => [index('category_filters_category_idx').on(t.categoryId, t.position)])

export const categoryFilterOptions = pgTable('category_filter_options', {
  id: id(),
  filterId: uuid('filter_id').notNull().references(() => categoryFilters.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
  label: text('label').notNull()
}, (t) => [index('category_filter_options_filter_idx').on(t.filterId, t.position)])

export const currencyRates = pgTable('currency_rates', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  code: text('code').notNull(),
  /** Rubles per one unit of the currency. */
  rate: numeric('rate', { precision: 18, scale: 6 }).notNull(),
  updatedAt: stamp('updated_at')
}, (t) => [uniqueIndex('currency_rates_shop_code_idx').on(t.shopId, t.code)])

export const media = pgTable('media', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  ext: text('ext').notNull(),
  mime: text('mime').notNull(),
  size: integer('size').notNull(),
  /** SHA-256 hex of the bytes: the strong ETag of the public file. */
  sha256: text('sha256').notNull(),
  data: bytea('data').notNull(),
  createdAt: stamp('created_at')
}, (t) => [index('media_shop_idx').on(t.shopId)])

export const products = pgTable('products', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  categoryId: uuid('category_id').notNull().references(() => categories.id),
  title: text('title').notNull(),
  description: text('description').notNull(),
  active: boolean('active').notNull(),
  archived: boolean('archived').notNull().default(false),
  external: boolean('external').notNull(),
  currencyRateId: uuid('currency_rate_id').references(() => currencyRates.id),
  price: money('price').notNull(),
  imageId: uuid('image_id').references(() => media.id),
  employeeRewardType: text('employee_reward_type').$type<EmployeeRewardType>().notNull(),
  employeeRewardValue: money('employee_reward_value').notNull(),
  createdAt: stamp('created_at'),
  updatedAt: stamp('updated_at'),
  // The product's stock settings (docs/stock.md): every product has them from creation.
  autoDelivery: text('auto_delivery').notNull().default('off'),
  /** The select field whose options are the stock's variants; null: one stock for the product. */
  stockOptionFieldId: uuid('stock_option_field_id'),
  lowStockThreshold: integer('low_stock_threshold').notNull().default(0),
  deactivateWhenEmpty: boolean('deactivate_when_empty').notNull().default(false),
  deactivatedByStock: boolean('deactivated_by_stock').notNull().default(false),
  /** Claims on values from this stock are replaced from it at once, once per order (docs/claims.md). */
  autoReplace: boolean('auto_replace').notNull().default(false),
  stockUpdatedAt: stamp('stock_updated_at')
}, (t) => [index('products_shop_created_idx').on(t.shopId, t.createdAt.desc(), t.id.desc())])

export const productFields = pgTable('product_fields', {
  id: id(),
  productId: uuid('product_id').notNull().references(() => products.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
  type: text('type').$type<FieldType>().notNull(),
  label: text('label').notNull(),
  required: boolean('required').notNull(),
  multiple: boolean('multiple').notNull(),
  valuePricing: boolean('value_pricing').notNull().default(false),
  valueMin: numeric('value_min', { precision: 20, scale: 6 }).notNull().default('0'),
  valueMax: numeric('value_max', { precision: 20, scale: 6 }).notNull().default('0'),
  valueStep: numeric('value_step', { precision: 20, scale: 6 }).notNull().default('0'),
  dataRequest: boolean('data_request').notNull().default(false),
  dataRequestWebhookUrl: text('data_request_webhook_url').notNull().default(''),
  requestAfterPayment: boolean('request_after_payment').notNull().default(false)
}, (t) => [index('product_fields_product_idx').on(t.productId, t.position)])

export const productFieldOptions = pgTable('product_field_options', {
  id: id(),
  fieldId: uuid('field_id').notNull().references(() => productFields.id, { onDelete: 'cascade' }),
  position: integer('position').notNull(),
  label: text('label').notNull(),
  price: money('price').notNull()
}, (t) => [index('product_field_options_field_idx').on(t.fieldId, t.position)])

export const productFilters = pgTable('product_filters', {
  id: id(),
  productId: uuid('product_id').notNull().references(() => products.id, { onDelete: 'cascade' }),
  filterId: uuid('filter_id').notNull().references(() => categoryFilters.id),
  position: integer('position').notNull(),
  optionIds: uuid('option_ids').array().notNull()
}, (t) => [uniqueIndex('product_filters_product_filter_idx').on(t.productId, t.filterId)])

export const orders = pgTable('orders', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  productId: uuid('product_id').notNull().references(() => products.id),
  productTitle: text('product_title').notNull(),
  quantity: integer('quantity').notNull(),
  /** Rubles the buyer paid for the whole order. */
  amount: money('amount').notNull(),
  status: text('status').notNull().default('paid'),
  /**
   * The product's `external` (visibility through /v1), copied so the seller's
   * queue is one index range. Never written by the application: a trigger sets it
   * from the product on insert and a product's change is copied to its orders in
   * the same statement (custom migration `order_visibility_triggers`).
   */
  external: boolean('external').notNull().default(false),
  assigneeType: text('assignee_type').notNull().default('user'),
  fieldValues: jsonb('field_values').$type<Array<{ fieldId: string, label: string, value: string }>>().notNull(),
  /**
   * The values delivered, sealed under the values key and bound to the order
   * (domain/delivered-values.ts): {keyId, sealed}; a plain list only when empty,
   * written before sealing (`cli values:reencrypt` seals it) or without a key.
   */
  deliveredValues: jsonb('delivered_values').$type<StoredValues>().notNull().default(sql`'[]'::jsonb`),
  cancelReason: text('cancel_reason'),
  createdAt: stamp('created_at'),
  takenAt: ts('taken_at'),
  deliveredAt: ts('delivered_at'),
  completedAt: ts('completed_at'),
  cancelledAt: ts('cancelled_at'),
  updatedAt: stamp('updated_at'),
  /**
   * The createdAt of the order's newest chat message. A post stamps its message
   * max(now, this + 1 ms) in the UPDATE that sets it, which serialises the posts
   * to one order on its row (db/orders/messages.ts).
   */
  lastMessageAt: ts('last_message_at')
}, (t) => [
  // The seller's queue: visible orders of a shop by status, in creation order.
  index('orders_visible_shop_status_created_idx').on(t.shopId, t.status, t.createdAt, t.id).where(sql`${t.external}`),
  index('orders_product_status_created_idx').on(t.productId, t.status, t.createdAt, t.id),
  check('orders_delivered_values_shape',
    sql`jsonb_typeof(${t.deliveredValues}) = 'array' OR (jsonb_typeof(${t.deliveredValues}) = 'object'
    AND jsonb_typeof(${t.deliveredValues}->'keyId') = 'string' AND jsonb_typeof(${t.deliveredValues}->'sealed')
      = 'string')`)
])

/**
 * How many stock items each variant (`optionKey`, NO_OPTION of domain/stock-rules.ts without variants) of a
 * product has in each status. Every change of an item's status updates its row in
 * the same transaction, under the row's lock: the row is the lock that orders the
 * takers of one variant, and its `available` is exact (db/stock/items.ts).
 */
export const stockCounts = pgTable('stock_counts', {
  productId: uuid('product_id').notNull().references(() => products.id),
  optionKey: uuid('option_key').notNull(),
  available: integer('available').notNull().default(0),
  delivered: integer('delivered').notNull().default(0),
  removed: integer('removed').notNull().default(0),
  /** Items a claim reported as bad (docs/claims.md): never available again. */
  defective: integer('defective').notNull().default(0),
  updatedAt: stamp('updated_at')
}, (t) => [primaryKey({ columns: [t.productId, t.optionKey] })])

/**
 * The values a product's stock holds, encrypted (docs/stock.md). `position` keeps
 * the insertion order: items are taken oldest first through the partial index of
 * available items, which stays as small as the available stock whatever the
 * history. `valueHash` is an HMAC of the value, for the duplicate check only.
 */
export const stockItems = pgTable('stock_items', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  productId: uuid('product_id').notNull().references(() => products.id),
  optionKey: uuid('option_key').notNull(),
  /** Ascending in insertion order within the product (db/stock/items.ts sets it explicitly for an upload's order). */
  position: bigint('position', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
  status: text('status').notNull().default('available'),
  /** The order the item was delivered to (null until then, and again after a restock). */
  orderId: uuid('order_id'),
  ciphertext: bytea('ciphertext').notNull(),
  nonce: bytea('nonce').notNull(),
  keyId: text('key_id').notNull(),
  valueHash: bytea('value_hash').notNull(),
  /** The value's first 4 characters, or '' for values of 8 characters or fewer. */
  preview: text('preview').notNull(),
  createdAt: stamp('created_at'),
  deliveredAt: ts('delivered_at'),
  removedAt: ts('removed_at'),
  /**
   * The position in its order's deliveredValues (null: the rank by position among the order's items; docs/claims.md).
   */
  deliveredIndex: integer('delivered_index')
}, (t) => [
  index('stock_items_take_idx').on(t.productId, t.optionKey, t.position).where(sql`status = 'available'`),
  uniqueIndex('stock_items_value_idx').on(t.productId,
    t.valueHash).where(sql`status in ('available', 'delivered', 'defective')`),
  index('stock_items_list_idx').on(t.productId, t.position),
  index('stock_items_status_list_idx').on(t.productId, t.status, t.position),
  index('stock_items_order_idx').on(t.orderId).where(sql`order_id is not null`),
  index('stock_items_key_idx').on(t.keyId, t.position)
])

/**
 * How many orders each product of a shop has in each status, so a list's `total`
 * costs a few rows whatever the backlog. Kept by triggers on orders in the
 * transaction of every insert and status change (custom migration `order_visibility_triggers`).
 */
export const orderCounts = pgTable('order_counts', {
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  status: text('status').notNull(),
  productId: uuid('product_id').notNull().references(() => products.id),
  count: integer('count').notNull()
}, (t) => [primaryKey({ columns: [t.shopId, t.status, t.productId] })])

export const orderMessages = pgTable('order_messages', {
  id: id(),
  orderId: uuid('order_id').notNull().references(() => orders.id),
  senderRole: text('sender_role').notNull(),
  text: text('text').notNull(),
  /** Strictly increasing within an order: the chat cursor relies on it. */
  createdAt: stamp('created_at'),
  /** The chat rule that posted it (docs/chat-rules.md); null for every other message. No key: rules are deleted. */
  ruleId: uuid('rule_id'),
  /** A system message's kind and numbers (domain/system-messages.ts), for the portal's words; else null. */
  meaning: jsonb('meaning').$type<SystemMessage>()
}, (t) => [uniqueIndex('order_messages_order_created_idx').on(t.orderId, t.createdAt)])

export const ledgerEntries = pgTable('ledger_entries', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  orderId: uuid('order_id').notNull().references(() => orders.id),
  /**
   * The order's product, for the sales statistics. Writers leave it out: a trigger
   * copies it from the order on insert (custom migration `sales_stats`), hence the
   * nominal default.
   */
  productId: uuid('product_id').notNull().default(sql`null`),
  kind: text('kind').notNull(),
  amount: money('amount').notNull(),
  createdAt: stamp('created_at')
}, (t) => [
  // One money movement of each kind per order: a second refund or credit cannot exist.
  uniqueIndex('ledger_entries_order_kind_idx').on(t.orderId, t.kind),
  // The shop's ledger by date, carrying what the sales statistics sum (read index-only).
  index('ledger_entries_shop_sales_idx').on(t.shopId, t.createdAt, t.productId, t.kind, t.amount)
])

/**
 * The shop's order feed (docs/events.md): one row per change a bot cares
 * about, written in the change's own transaction. `seq` numbers a shop's events
 * in commit order (see shops.eventSeq); `id` is the event's public id.
 */
export const events = pgTable('events', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  type: text('type').notNull(),
  data: jsonb('data').notNull(),
  createdAt: stamp('created_at')
}, (t) => [
  uniqueIndex('events_shop_seq_idx').on(t.shopId, t.seq),
  index('events_created_idx').on(t.createdAt)
])

/** Idempotency records when no Redis is configured (Redis holds them otherwise). */
export const idempotencyRecords = pgTable('idempotency_records', {
  key: text('key').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  /** Null while the first request is still running. */
  /** The finished response; its body sealed under the values key when it has `keyId` (domain/sealed-responses.ts). */
  response: jsonb('response').$type<{
    statusCode: number,
    headers: Record<string, string>,
    body: string,
    keyId?: string
  }>(),
  /** Names the request holding the key's lease, so a release drops only its own hold. */
  leaseToken: text('lease_token'),
  /**
   * The same token under its former name, still written for the older instances of a
   * rolling start (migration 0019); the next migration drops it.
   */
  formerClaimToken: text('claim_token'),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull()
}, (t) => [index('idempotency_records_expires_idx').on(t.expiresAt)])

export const categoriesRelations = relations(categories, ({ many }) => ({ filters: many(categoryFilters) }))
export const categoryFiltersRelations = relations(categoryFilters, ({ one, many }) => ({
  category: one(categories, { fields: [categoryFilters.categoryId], references: [categories.id] }),
  options: many(categoryFilterOptions)
}))
export const categoryFilterOptionsRelations = relations(categoryFilterOptions, ({ one }) => ({
  filter: one(categoryFilters, { fields: [categoryFilterOptions.filterId], references: [categoryFilters.id] })
}))
export const productsRelations = relations(products, ({ one, many }) => ({
  fields: many(productFields),
  filters: many(productFilters),
  currencyRate: one(currencyRates, { fields: [products.currencyRateId], references: [currencyRates.id] }),
  image: one(media, { fields: [products.imageId], references: [media.id] })
}))
export const productFieldsRelations = relations(productFields, ({ one, many }) => ({
  product: one(products, { fields: [productFields.productId], references: [products.id] }),
  options: many(productFieldOptions)
}))
export const productFieldOptionsRelations = relations(productFieldOptions, ({ one }) => ({
  field: one(productFields, { fields: [productFieldOptions.fieldId], references: [productFields.id] })
}))
export const productFiltersRelations = relations(productFilters, ({ one }) => ({
  product: one(products, { fields: [productFilters.productId], references: [products.id] })
}))
