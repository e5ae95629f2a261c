// Taking items from stock (docs/stock.md). One function decides which items an
// order gets, `takeStock`, used by the purchase (db/orders/purchase.ts), by the
// fill of waiting orders after an upload, a restock or switching `autoDelivery`
// to `stock` (db/orders/auto-delivery.ts). Every caller holds the product row's
// lock (`lockStockProduct`) for its whole transaction, so the takers of one
// product are serialised on every instance and each variant's count in
// stock_counts is exact; items are taken oldest first through the partial index
// of available items (FOR UPDATE SKIP LOCKED skips only the rows a re-encryption
// batch holds). The orders the items go to are written by db/orders/.
import type { StockCipher } from '../../domain/stock-cipher.js'
import { chosenOptionKey, signalsOf, type AutoDelivery, type StockSignal } from '../../domain/stock-rules.js'
import type { Tx } from '../core/client.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { appendEventRowsCtes } from '../events/statements.js'
import { run, runPrepared } from '../core/sql.js'
import { NOW_MS as nowMs } from '../core/time.js'

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

/**
 * An order that wants `quantity` items of one variant; with `positions`, the
 * items taken are numbered with them (a claim's replacement: the positions of
 * the order's delivered values they carry), in the order of the items' positions.
 */
export interface StockDemand { orderId: string, optionKey: string, quantity: number, positions?: readonly number[] }

/** What one take did: the order's values, in the order taken, and the signals it caused. */
export interface StockTake { orderId: string, values: string[], signals: StockSignal[] }

/** The stock settings' columns of `products`, named as StockProduct. */
const productColumns = `id, shop_id as "shopId", auto_delivery as "autoDelivery",
  stock_option_field_id as "optionFieldId", low_stock_threshold as "lowStockThreshold",
  deactivate_when_empty as "deactivateWhenEmpty", deactivated_by_stock as "deactivatedByStock", active, archived`

/** Locks the product (FOR NO KEY UPDATE: purchases' order inserts still pass) and reads its stock settings. */
export async function lockStockProduct (
  tx: Tx, productId: string, shopId: string | null = null
): Promise<StockProduct | undefined> {
  const [row] = await runPrepared<StockProduct>(tx, `select ${productColumns}
    from products where id = $1 and ($2::uuid is null or shop_id = $2::uuid) for no key update`, [productId, shopId])
  return row
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
const limitOf = (quantity: number) =>
  Number.isInteger(quantity) && quantity >= 1 && quantity <= LITERAL_LIMITS ? String(quantity) : '$3'

/**
 * The CTEs `c` (the count lowered by $3 when it holds that many) and `u` (then
 * $3 items taken for order $4), for `product`. The variant is written as a
 * range and is part of the order so that only the partial index of available
 * items (product, variant, position) serves the take: with `option_key = $2`
 * the planner may walk the product's index of all items past every delivered
 * one (same cost estimate on fresh statistics), a take growing with the items
 * delivered.
 */
const takeCtes = (product: string, limit: string, numbered = false) => `c as (
    update stock_counts
    set available = available - $3, delivered = delivered + $3, updated_at = ${nowMs}
    where product_id = ${product} and option_key = $2 and available >= $3 returning available
  ), t as (
    select id${numbered ? ', position' : ''} from stock_items
    where product_id = $1 and option_key between $2 and $2 and status = 'available' and exists (select 1 from c)
    order by option_key, position limit ${limit} for update skip locked
  ), ${numbered ? 'tn as (select id, row_number() over (order by position) as n from t), ' : ''}u as (
    update stock_items i
    set status = 'delivered', order_id = $4,
      delivered_at = ${nowMs}${numbered ? ', delivered_index = ($5::int[])[tn.n]' : ''}
    from ${numbered ? 'tn' : 't'} where i.id = ${numbered ? 'tn' : 't'}.id
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

/** takeItemsSql numbering the items taken with the positions $5 (StockDemand's `positions`). */
const takeNumberedItemsSql = textPerLimit((limit) => `with ${takeCtes('$1', limit, true)}
  select ${takenColumns} from c left join u on true`)

/**
 * The purchase's statement (takeForPurchase): locks the product as
 * lockStockProduct does and, when it is `autoDelivery: stock` with stock field
 * $5, takes as takeItemsSql does. The product's columns on every row (one row
 * at least when the product exists), with the columns of takeItemsSql.
 */
const lockAndTakeSql = textPerLimit((limit) => `with p as (
    select ${productColumns} from products where id = $1 for no key update
  ), ${takeCtes(
    "(select id from p where \"autoDelivery\" = 'stock' and \"optionFieldId\" is not distinct from $5::uuid)",
    limit
  )}
  select p.*, ${takenColumns} from p left join c on true left join u on true`)

type TakenRow = TakenItem & { available: number | null }

/**
 * The take of `demand` from the rows of a take statement: undefined when the count
 * was too low; StockBusyError when the count promised more than could be taken.
 */
function takeOf (
  cipher: StockCipher, product: StockProduct, demand: StockDemand, rows: readonly TakenRow[]
): StockTake | undefined {
  if (rows.length === 0 || rows[0].available === null) return undefined
  const items = rows.filter((row) => row.position !== null)
  if (items.length < demand.quantity) throw new StockBusyError('stock items locked by another transaction')
  items.sort((a, b) => Number(BigInt(a.position) - BigInt(b.position)))
  const values = items.map((item) => cipher.decrypt({
    ciphertext: Buffer.from(item.ciphertext), nonce: Buffer.from(item.nonce), keyId: item.keyId
  }, product.id))
  const after = Number(rows[0].available)
  const signals = signalsOf(product, demand.optionKey, after + demand.quantity, after, true)
  return { orderId: demand.orderId, values, signals }
}

/**
 * Gives each demand, in the order given, all its items or none: the variant's
 * count is lowered only when it holds enough, then that many items are taken
 * oldest first and marked delivered to the order. Needs the product's lock.
 */
export async function takeStock (
  tx: Tx, cipher: StockCipher, product: StockProduct, demands: readonly StockDemand[]
): Promise<StockTake[]> {
  const takes: StockTake[] = []
  for (const demand of demands) {
    const params = [product.id, demand.optionKey, demand.quantity, demand.orderId]
    const rows = demand.positions === undefined
      ? await runPrepared<TakenRow>(tx, takeItemsSql(demand.quantity), params)
      : await runPrepared<TakenRow>(tx, takeNumberedItemsSql(demand.quantity),
        [...params, `{${demand.positions.join(',')}}`])
    const take = takeOf(cipher, product, demand, rows)
    if (take) takes.push(take)
  }
  return takes
}

/** What lockAndTake did: `tried` says whether it tried the demand (the product's settings matched). */
interface LockAndTake { product: StockProduct | undefined, tried: boolean, take: StockTake | undefined }

/**
 * lockStockProduct and takeStock of one demand in one round trip, for the
 * stock field `optionFieldId` the demand's variant was chosen by (read before
 * the lock): when the locked product is not `autoDelivery: stock` with that
 * field, nothing is taken (`tried: false`) and the caller decides under the lock.
 */
async function lockAndTake (
  tx: Tx, cipher: StockCipher, productId: string, optionFieldId: string | null, demand: StockDemand
): Promise<LockAndTake> {
  const params = [productId, demand.optionKey, demand.quantity, demand.orderId, optionFieldId]
  const rows = await runPrepared<StockProduct & TakenRow>(tx, lockAndTakeSql(demand.quantity), params)
  if (rows.length === 0) return { product: undefined, tried: false, take: undefined }
  const { id, shopId, autoDelivery, optionFieldId: field, lowStockThreshold } = rows[0]
  const { deactivateWhenEmpty, deactivatedByStock, active, archived } = rows[0]
  const product = {
    id,
    shopId,
    autoDelivery,
    optionFieldId: field,
    lowStockThreshold,
    deactivateWhenEmpty,
    deactivatedByStock,
    active,
    archived
  }
  if (autoDelivery !== 'stock' || field !== optionFieldId) return { product, tried: false, take: undefined }
  return { product, tried: true, take: takeOf(cipher, product, demand, rows) }
}

/** A purchase's wish: `quantity` items for order `orderId`, of the variant the buyer's input chose. */
export interface PurchaseDemand {
  productId: string
  orderId: string
  quantity: number
  /** The buyer's field values: the stock field's value is the chosen option's id. */
  input: ReadonlyArray<{ fieldId: string, value: string }>
  /** The product's stock field as read before the transaction (checked again under the lock). */
  optionFieldId: string | null
}

/**
 * The stock take of a purchase, first in its transaction: locks the product (in
 * one round trip with the take when its settings are still those read before)
 * and takes the items when the product is `autoDelivery: stock` and the chosen
 * variant holds enough; deactivates an emptied product. Undefined when nothing
 * was taken (the order is then recorded paid, under the same lock).
 */
export async function takeForPurchase (
  tx: Tx, cipher: StockCipher, demand: PurchaseDemand
): Promise<StockTake | undefined> {
  const wanted = (optionKey: string) => ({ orderId: demand.orderId, optionKey, quantity: demand.quantity })
  const expected = chosenOptionKey(demand.optionFieldId, demand.input)
  const first = expected === undefined
    ? { product: await lockStockProduct(tx, demand.productId), tried: false, take: undefined }
    : await lockAndTake(tx, cipher, demand.productId, demand.optionFieldId, wanted(expected))
  const product = first.product
  if (!product || product.autoDelivery !== 'stock') return undefined
  let take = first.take
  if (!first.tried) {
    const optionKey = chosenOptionKey(product.optionFieldId, demand.input)
    if (optionKey === undefined) return undefined
    ;[take] = await takeStock(tx, cipher, product, [wanted(optionKey)])
  }
  if (take) await deactivateIfEmpty(tx, product)
  return take
}

/** Whether the product's whole available count is 0 (under its lock, so exact). */
export async function stockIsEmpty (tx: Tx, productId: string): Promise<boolean> {
  const [row] = await run<{ available: number }>(tx,
    'select coalesce(sum(available), 0)::int as available from stock_counts where product_id = $1', [productId])
  return Number(row.available) === 0
}

/** Makes a product emptied with `deactivateWhenEmpty` inactive: one statement, sent at once (no await before it). */
export async function deactivateIfEmpty (tx: Tx, product: StockProduct): Promise<void> {
  if (!product.deactivateWhenEmpty || !product.active) return
  await runPrepared(tx, `update products set active = false, deactivated_by_stock = true, updated_at = ${nowMs}
    where id = $1 and not exists (select 1 from stock_counts where product_id = $1 and available > 0)`, [product.id])
}

/** Reactivates a product emptied by stock once items come back (not an archived one); returns it as it now is. */
export async function reactivateAfterRestock (tx: Tx, product: StockProduct): Promise<StockProduct> {
  if (!product.deactivatedByStock || product.archived) return product
  await run(tx, `update products set active = true, deactivated_by_stock = false, updated_at = ${nowMs} where id = $1`,
    [product.id])
  return { ...product, active: true, deactivatedByStock: false }
}

/**
 * One statement for signals without an order change (a removal): appends them
 * to the feed. Needs no other lock than the shop row's.
 */
export async function recordSignals (tx: Tx, shopId: string, signals: readonly StockSignal[]): Promise<void> {
  if (signals.length === 0) return
  await runPrepared(tx, `with evs as (
      select x.n as ord, x.e->>'type' as type, x.e->'data' as data
      from jsonb_array_elements($2::text::jsonb) with ordinality x(e, n)
    ), ${appendEventRowsCtes('evs', '$1')}
    select 1`, [shopId, JSON.stringify(signals)])
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
}
