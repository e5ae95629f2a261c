// Instant delivery from stock (docs/stock.md). One function decides which items
// an order gets, `assignStock`, used by the purchase, by the fill of waiting
// orders after an upload or a restock, and by the fill after switching
// `autoDelivery` to `stock`. Every caller holds the product row's lock
// (`lockStockProduct`) for its whole transaction, so the takers of one product
// are serialised on every instance and each variant's count in stock_counts is
// exact; items are taken oldest first through the partial index of available
// items (FOR UPDATE SKIP LOCKED skips only the rows a re-encryption batch holds).
import type { StockCipher } from '../domain/stock-cipher.js'
import type { Tx } from './client.js'
import { EVENTS_CHANNEL } from './events.js'
import { notifyAfterCommit } from './notifications.js'
import { NO_OPTION } from './schema.js'
import { appendEventRowsCtes } from './event-statements.js'
import { orderJson } from './order-row.js'
import { NOW_MS as nowMs } from './sql-time.js'
import { run, runPrepared } from './stock-statements.js'

export type AutoDelivery = 'off' | 'stock' | 'endpoint'

/** The stock settings of a product, read under its row lock. */
export interface StockProduct {
  id: string
  shopId: string
  autoDelivery: AutoDelivery
  optionFieldId: string | null
  lowStockThreshold: number
  deactivateWhenEmpty: boolean
  deactivatedByStock: boolean
  active: boolean
  archived: boolean
}

/** A stock signal event (stock.low, stock.empty) as it goes on the feed. */
export interface StockSignal { type: 'stock.low' | 'stock.empty', data: Record<string, unknown> }

/** An order that wants `quantity` items of one variant. */
export interface Demand { orderId: string, optionKey: string, quantity: number }

/** What one delivery did: the order's values, in the order taken, and the signals it caused. */
export interface Assignment { orderId: string, values: string[], signals: StockSignal[] }

/** The stock settings' columns of `products`, named as StockProduct. */
const productColumns = `id, shop_id as "shopId", auto_delivery as "autoDelivery",
  stock_option_field_id as "optionFieldId", low_stock_threshold as "lowStockThreshold",
  deactivate_when_empty as "deactivateWhenEmpty", deactivated_by_stock as "deactivatedByStock", active, archived`

/** Locks the product (FOR NO KEY UPDATE: purchases' order inserts still pass) and reads its stock settings. */
export async function lockStockProduct (tx: Tx, productId: string, shopId: string | null = null): Promise<StockProduct | undefined> {
  const [row] = await runPrepared<StockProduct>(tx, `select ${productColumns}
    from products where id = $1 and ($2::uuid is null or shop_id = $2::uuid) for no key update`, [productId, shopId])
  return row
}

export const optionIdOf = (optionKey: string) => optionKey === NO_OPTION ? null : optionKey

/** The signals of a count going from `before` to `after` by a delivery (stock.low) or any taking (stock.empty). */
export function signalsOf (product: StockProduct, optionKey: string, before: number, after: number, delivery: boolean): StockSignal[] {
  const signals: StockSignal[] = []
  const optionId = optionIdOf(optionKey)
  const threshold = product.lowStockThreshold
  if (delivery && threshold > 0 && before > threshold && after <= threshold) {
    signals.push({ type: 'stock.low', data: { productId: product.id, optionId, available: after, lowStockThreshold: threshold } })
  }
  if (before > 0 && after === 0) signals.push({ type: 'stock.empty', data: { productId: product.id, optionId, available: 0 } })
  return signals
}

/** Thrown when SKIP LOCKED found fewer items than the count promised: the transaction is run again. */
export class StockBusyError extends Error {}

interface TakenItem { position: string, ciphertext: Buffer | Uint8Array, nonce: Buffer | Uint8Array, keyId: string }

/**
 * Quantities up to this are taken with their LIMIT written as a literal. With
 * `limit $3` the generic plan of a take is costed for an unknown number of
 * items, so Postgres keeps planning the statement again on every execution (a
 * custom plan each time: about a third of a purchase's database CPU in
 * `npm run bench`, docs/performance.md); with a literal it plans it once per
 * connection.
 */
const LITERAL_LIMITS = 4

/** The LIMIT of a take of `quantity` items: a literal for small quantities, else the parameter $3. */
const limitOf = (quantity: number) => Number.isInteger(quantity) && quantity >= 1 && quantity <= LITERAL_LIMITS ? String(quantity) : '$3'

/**
 * The CTEs `c` (the count lowered by $3 when it holds that many) and `u` (then
 * $3 items taken for order $4), for `product`. The variant is written as a
 * range and is part of the order so that only the partial index of available
 * items (product, variant, position) serves the take: with `option_key = $2`
 * the planner may walk the product's index of all items past every delivered
 * one (same cost estimate on fresh statistics), a take growing with the items
 * delivered.
 */
const takeCtes = (product: string, limit: string) => `c as (
    update stock_counts
    set available = available - $3, delivered = delivered + $3, updated_at = ${nowMs}
    where product_id = ${product} and option_key = $2 and available >= $3 returning available
  ), t as (
    select id from stock_items where product_id = $1 and option_key between $2 and $2 and status = 'available' and exists (select 1 from c)
    order by option_key, position limit ${limit} for update skip locked
  ), u as (
    update stock_items i
    set status = 'delivered', order_id = $4, delivered_at = ${nowMs}
    from t where i.id = t.id
    returning i.position, i.ciphertext, i.nonce, i.key_id
  )`

/** The statement `build` writes for the LIMIT of a take of `quantity` items, built once per LIMIT. */
function textPerLimit (build: (limit: string) => string): (quantity: number) => string {
  const texts = new Map<string, string>()
  return (quantity) => {
    const limit = limitOf(quantity)
    let text = texts.get(limit)
    if (text === undefined) texts.set(limit, text = build(limit))
    return text
  }
}

const takenColumns = 'c.available, u.position::text as position, u.ciphertext, u.nonce, u.key_id as "keyId"'

/**
 * One statement: lowers the variant's count by $3 only when it holds that many,
 * and then (only then) takes $3 items oldest first and marks them delivered to
 * order $4. One row per item taken, each with the count left (`available`);
 * a single row with null item columns when the count was lowered but no item
 * could be taken; no row when the count was too low.
 */
const takeItemsSql = textPerLimit((limit) => `with ${takeCtes('$1', limit)}
  select ${takenColumns} from c left join u on true`)

/**
 * The purchase's statement (db/stock-purchase.ts): locks the product as
 * lockStockProduct does and, when it is `autoDelivery: stock` with stock field
 * $5, takes as takeItemsSql does. The product's columns on every row (one row
 * at least when the product exists), with the columns of takeItemsSql.
 */
const lockAndTakeSql = textPerLimit((limit) => `with p as (
    select ${productColumns} from products where id = $1 for no key update
  ), ${takeCtes("(select id from p where \"autoDelivery\" = 'stock' and \"optionFieldId\" is not distinct from $5::uuid)", limit)}
  select p.*, ${takenColumns} from p left join c on true left join u on true`)

type TakenRow = TakenItem & { available: number | null }

/**
 * The assignment of `demand` from the rows of a take: undefined when the count
 * was too low; StockBusyError when the count promised more than could be taken.
 */
function assignmentOf (cipher: StockCipher, product: StockProduct, demand: Demand, rows: readonly TakenRow[]): Assignment | undefined {
  if (rows.length === 0 || rows[0].available === null) return undefined
  const items = rows.filter((row) => row.position !== null)
  if (items.length < demand.quantity) throw new StockBusyError('stock items locked by another transaction')
  items.sort((a, b) => Number(BigInt(a.position) - BigInt(b.position)))
  const values = items.map((item) => cipher.decrypt({ ciphertext: Buffer.from(item.ciphertext), nonce: Buffer.from(item.nonce), keyId: item.keyId }, product.id))
  const after = Number(rows[0].available)
  return { orderId: demand.orderId, values, signals: signalsOf(product, demand.optionKey, after + demand.quantity, after, true) }
}

/**
 * Gives each demand, in the order given, all its items or none: the variant's
 * count is lowered only when it holds enough, then that many items are taken
 * oldest first and marked delivered to the order. Needs the product's lock.
 */
export async function assignStock (tx: Tx, cipher: StockCipher, product: StockProduct, demands: readonly Demand[]): Promise<Assignment[]> {
  const assignments: Assignment[] = []
  for (const demand of demands) {
    const rows = await runPrepared<TakenRow>(tx, takeItemsSql(demand.quantity), [product.id, demand.optionKey, demand.quantity, demand.orderId])
    const assignment = assignmentOf(cipher, product, demand, rows)
    if (assignment) assignments.push(assignment)
  }
  return assignments
}

/** What lockAndAssign did: `taken` says whether it tried the demand (the product's settings matched). */
export interface LockAndAssign { product: StockProduct | undefined, taken: boolean, assignment: Assignment | undefined }

/**
 * lockStockProduct and assignStock of one demand in one round trip, for the
 * stock field `optionFieldId` the demand's variant was chosen by (read before
 * the lock): when the locked product is not `autoDelivery: stock` with that
 * field, nothing is taken (`taken: false`) and the caller decides under the lock.
 */
export async function lockAndAssign (tx: Tx, cipher: StockCipher, productId: string, optionFieldId: string | null, demand: Demand): Promise<LockAndAssign> {
  const rows = await runPrepared<StockProduct & TakenRow>(tx, lockAndTakeSql(demand.quantity), [productId, demand.optionKey, demand.quantity, demand.orderId, optionFieldId])
  if (rows.length === 0) return { product: undefined, taken: false, assignment: undefined }
  const { id, shopId, autoDelivery, optionFieldId: field, lowStockThreshold, deactivateWhenEmpty, deactivatedByStock, active, archived } = rows[0]
  const product = { id, shopId, autoDelivery, optionFieldId: field, lowStockThreshold, deactivateWhenEmpty, deactivatedByStock, active, archived }
  if (autoDelivery !== 'stock' || field !== optionFieldId) return { product, taken: false, assignment: undefined }
  return { product, taken: true, assignment: assignmentOf(cipher, product, demand, rows) }
}

/** Whether the product's whole available count is 0 (under its lock, so exact). */
export async function stockIsEmpty (tx: Tx, productId: string): Promise<boolean> {
  const [row] = await run<{ available: number }>(tx, 'select coalesce(sum(available), 0)::int as available from stock_counts where product_id = $1', [productId])
  return Number(row.available) === 0
}

/** Makes a product emptied with `deactivateWhenEmpty` inactive; returns whether it did. */
export async function deactivateIfEmpty (tx: Tx, product: StockProduct): Promise<void> {
  if (!product.deactivateWhenEmpty || !product.active || !await stockIsEmpty(tx, product.id)) return
  await run(tx, `update products set active = false, deactivated_by_stock = true, updated_at = ${nowMs} where id = $1`, [product.id])
}

/** Reactivates a product emptied by stock once items come back (not an archived one). */
export async function reactivateAfterRestock (tx: Tx, product: StockProduct): Promise<void> {
  if (!product.deactivatedByStock || product.archived) return
  await run(tx, `update products set active = true, deactivated_by_stock = false, updated_at = ${nowMs} where id = $1`, [product.id])
}

/**
 * One statement for signals without an order change (a removal): appends them
 * to the feed. Needs no other lock than the shop row's.
 */
export async function recordSignals (tx: Tx, shopId: string, signals: readonly StockSignal[]): Promise<void> {
  if (signals.length === 0) return
  await run(tx, `with evs as (
      select x.n as ord, x.e->>'type' as type, x.e->'data' as data from jsonb_array_elements($2::text::jsonb) with ordinality x(e, n)
    ), ${appendEventRowsCtes('evs', '$1')}
    select 1`, [shopId, JSON.stringify(signals)])
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
}

interface WaitingOrder { id: string, quantity: number, fieldValues: Array<{ fieldId: string, value: string }> }

/** The variant a waiting order asks for: the option of the stock field whose label it chose (null: none matches). */
function optionKeyOf (order: WaitingOrder, optionFieldId: string | null, options: Map<string, string>): string | null {
  if (optionFieldId === null) return NO_OPTION
  const chosen = order.fieldValues.find((f) => f.fieldId === optionFieldId)
  return chosen ? options.get(chosen.value) ?? null : null
}

/**
 * Fills the product's waiting orders (paid, never taken), oldest first, each in
 * full or not at all, and records their deliveries with their events; returns
 * how many were filled. Only with `autoDelivery: stock`. Needs the product's lock.
 */
export async function fillWaitingOrders (tx: Tx, cipher: StockCipher, product: StockProduct): Promise<number> {
  if (product.autoDelivery !== 'stock') return 0
  const waiting = await run<WaitingOrder>(tx, `select id, quantity, field_values as "fieldValues" from orders
    where product_id = $1 and status = 'paid' order by created_at, id for update`, [product.id])
  if (waiting.length === 0) return 0
  const options = new Map<string, string>()
  if (product.optionFieldId !== null) {
    const rows = await run<{ id: string, label: string }>(tx, 'select id, label from product_field_options where field_id = $1 order by position desc', [product.optionFieldId])
    // The first option of a label wins when labels repeat.
    for (const row of rows) options.set(row.label, row.id)
  }
  const demands: Demand[] = []
  for (const order of waiting) {
    const optionKey = optionKeyOf(order, product.optionFieldId, options)
    if (optionKey !== null) demands.push({ orderId: order.id, optionKey, quantity: order.quantity })
  }
  const assignments = await assignStock(tx, cipher, product, demands)
  if (assignments.length === 0) return 0
  await deactivateIfEmpty(tx, product)
  await recordDeliveries(tx, product.shopId, assignments)
  return assignments.length
}

/**
 * One statement: the waiting orders become delivered (`auto`), each with its
 * `order.delivered` event (visible orders only) followed by its signals.
 */
async function recordDeliveries (tx: Tx, shopId: string, assignments: readonly Assignment[]): Promise<void> {
  const fills = assignments.map((a) => ({ id: a.orderId, values: a.values }))
  const feed = assignments.flatMap((a) => [{ order: a.orderId }, ...a.signals])
  await run(tx, `with f as (
      select (x->>'id')::uuid as id, x->'values' as vals from jsonb_array_elements($2::text::jsonb) x
    ), o as (
      update orders set status = 'awaiting_confirmation', assignee_type = 'auto', delivered_values = f.vals,
        taken_at = ${nowMs}, delivered_at = ${nowMs}, updated_at = ${nowMs}
      from f where orders.id = f.id and orders.status = 'paid'
      returning orders.*
    ), spec as (
      select x.n, (x.e->>'order')::uuid as order_id, x.e->>'type' as type, x.e->'data' as data
      from jsonb_array_elements($3::text::jsonb) with ordinality x(e, n)
    ), evs as (
      select spec.n as ord, coalesce(spec.type, 'order.delivered') as type,
        case when spec.order_id is null then spec.data else jsonb_build_object('order', ${orderJson('o')}) end as data
      from spec left join o on o.id = spec.order_id
      where spec.order_id is null or o.external
    ), ${appendEventRowsCtes('evs', '$1')}
    select count(*)::int as filled from o`, [shopId, JSON.stringify(fills), JSON.stringify(feed)])
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
}

export interface PurchaseRecord {
  id: string
  shopId: string
  productId: string
  productTitle: string
  quantity: number
  amount: string
  fieldValues: string
}

/**
 * One statement: the purchase's order, created delivered from stock, with
 * `order.paid` (the order as it was when paid), `order.delivered` and the
 * delivery's signals. Returns the order's response row.
 */
export async function recordStockPurchase<Order> (tx: Tx, purchase: PurchaseRecord, assignment: Assignment): Promise<Order> {
  const [row] = await runPrepared<{ order: Order }>(tx, `with o as (
      insert into orders (id, shop_id, product_id, product_title, quantity, amount, field_values, status, assignee_type,
        delivered_values, created_at, taken_at, delivered_at, updated_at)
      values ($1, $2, $3, $4, $5, $6::numeric, $7::text::jsonb, 'awaiting_confirmation', 'auto', $8::text::jsonb, ${nowMs}, ${nowMs}, ${nowMs}, ${nowMs})
      returning *
    ), r as (
      select ${orderJson('o')} as data, o.external from o
    ), evs as (
      select 1 as ord, 'order.paid' as type, jsonb_build_object('order', r.data || jsonb_build_object('status', 'paid', 'assigneeType', 'user',
        'deliveredValue', null, 'deliveredValues', '[]'::jsonb, 'takenAt', null, 'deliveredAt', null)) as data from r where r.external
      union all select 2, 'order.delivered', jsonb_build_object('order', r.data) from r where r.external
      union all select 2 + x.n, x.e->>'type', x.e->'data' from jsonb_array_elements($9::text::jsonb) with ordinality x(e, n)
    ), ${appendEventRowsCtes('evs', '$2')}
    select r.data as "order" from r`, [
    purchase.id, purchase.shopId, purchase.productId, purchase.productTitle, purchase.quantity, purchase.amount,
    purchase.fieldValues, JSON.stringify(assignment.values), JSON.stringify(assignment.signals)
  ])
  notifyAfterCommit(tx, EVENTS_CHANNEL, purchase.shopId)
  return row.order
}
