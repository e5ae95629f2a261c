// A buyer's purchase (docs/api-rules.md, the operator API; docs/stock.md): the
// order is validated and priced, then recorded paid, or, for a product with
// `autoDelivery: stock` whose chosen variant holds enough items, created
// already delivered (the transition `autoDeliver` of domain/order-transitions.ts)
// with the items the stock take gives it, in one transaction under the
// product's lock. Both `insert into orders` live here.
import { randomUUID } from 'node:crypto'
import { kopecksToDecimal } from '../../domain/money.js'
import { pricePurchase, type FieldValueInput } from '../../domain/purchase.js'
import { StockKeyError, type StockCipher } from '../../domain/stock-cipher.js'
import { notFound, validationError } from '../../domain/errors.js'
import type { Db, Tx } from '../core/client.js'
import { deliveryRequestCtes } from '../delivery-endpoint/requests.js'
import { appendEventCtes, appendEventRowsCtes, notifyEvent, type EventOutcome } from '../events/statements.js'
import { commitWith, pipelinedTransaction } from '../core/pipelined-transaction.js'
import { preparedOnce, rawQuery, runPrepared } from '../core/sql.js'
import { NOW_MS } from '../core/time.js'
import { StockBusyError, takeForPurchase, type StockTake } from '../stock/take.js'
import { readPurchaseProduct, type PurchaseProductRow } from './purchase-product.js'
import { deliveredValuesParam, orderJson, orderResponseColumns, type StoredOrder } from './row.js'
import { transitionColumns } from './transition-sql.js'

/** How often a purchase is tried again when a re-encryption batch held some of the items it needed. */
const BUSY_RETRIES = 5

/** The order a purchase records, priced: its columns as the statements below bind them. */
export interface PurchaseRecord {
  shopId: string
  productId: string
  productTitle: string
  quantity: number
  /** The exact decimal amount in rubles. */
  amount: string
  /** The order's field values as JSON text. */
  fieldValues: string
}

const recordParams = (record: PurchaseRecord) =>
  [record.shopId, record.productId, record.productTitle, record.quantity, record.amount, record.fieldValues]

/**
 * The paid purchase as one statement (db/events/statements.ts): the order (whose
 * `external` a trigger copies from the product) and, for a product with
 * automation, its `order.paid` event; for a product with `autoDelivery:
 * endpoint`, its delivery request (db/delivery-endpoint/requests.ts), whose commit wakes
 * the webhook worker with the event's notification.
 */
const paidPurchaseSql = `with o as (
    insert into orders (shop_id, product_id, product_title, quantity, amount, field_values)
    values ($1, $2, $3, $4, $5::numeric, $6::text::jsonb)
    returning *
  ), r as (
    select ${orderResponseColumns('o')} from o
  ), ${appendEventCtes({
    source: 'o',
    condition: 'o.external',
    type: 'order.paid',
    data: "jsonb_build_object('order', to_jsonb(r))",
    from: 'r'
  })},
  ${deliveryRequestCtes('o', 'r')}
  select r.*, case when o.external or exists (select 1 from q) then o.shop_id end as "eventShopId" from r, o`

/** The columns `autoDeliver` sets, as a delivered purchase's insert writes them ($8: the values). */
const delivered = transitionColumns('autoDeliver', '$8::text::jsonb')

/**
 * The purchase delivered from stock as one statement: the order with id $1,
 * created as `autoDeliver` leaves a paid order, with `order.paid` (the order as
 * it was when paid), `order.delivered` and the take's signals ($9).
 */
const deliveredPurchaseSql = `with o as (
    insert into orders (id, shop_id, product_id, product_title, quantity, amount, field_values, created_at,
      ${delivered.map(([column]) => column).join(', ')})
    values ($1, $2, $3, $4, $5, $6::numeric, $7::text::jsonb, ${NOW_MS},
      ${delivered.map(([, value]) => value).join(', ')})
    returning *
  ), r as (
    select ${orderJson('o')} as data, o.external from o
  ), evs as (
    select 1 as ord, 'order.paid' as type, jsonb_build_object('order', r.data || jsonb_build_object(
      'status', 'paid', 'assigneeType', 'user', 'deliveredValue', null, 'deliveredValues', '[]'::jsonb,
      'takenAt', null, 'deliveredAt', null)) as data
    from r where r.external
    union all select 2, 'order.delivered', jsonb_build_object('order', r.data) from r where r.external
    union all select 2 + x.n, x.e->>'type', x.e->'data'
    from jsonb_array_elements($9::text::jsonb) with ordinality x(e, n)
  ), ${appendEventRowsCtes('evs', '$2')}
  select r.data as "order" from r`

/** An order recorded, and whose feed to wake once its transaction has committed (null: none). */
interface Recorded { order: StoredOrder, eventShopId: string | null }

/** Records the paid order in transaction `tx` (under the product's lock), as its last statement. */
async function recordPaid (tx: Tx, record: PurchaseRecord): Promise<Recorded> {
  const [{ eventShopId, ...order }] = await commitWith(
    tx, runPrepared<StoredOrder & EventOutcome>(tx, paidPurchaseSql, recordParams(record))
  )
  return { order, eventShopId }
}

/** Records order `orderId` delivered with the take's values and its events, as the transaction's last statement. */
async function recordDelivered (
  tx: Tx, cipher: StockCipher, orderId: string, record: PurchaseRecord, take: StockTake
): Promise<Recorded> {
  const values = deliveredValuesParam(cipher, orderId, take.values)
  const params = [orderId, ...recordParams(record), values, JSON.stringify(take.signals)]
  const [row] = await commitWith(tx, runPrepared<{ order: StoredOrder }>(tx, deliveredPurchaseSql, params))
  return { order: row.order, eventShopId: record.shopId }
}

/** What a stock purchase knows before its transaction: the product read and priced, or only a hint. */
type Known = { record: PurchaseRecord, optionFieldId: string | null } | { hint: StockHint }

/**
 * The purchase of a product with `autoDelivery: stock`, in one transaction of
 * two round trips (db/core/pipelined-transaction.ts): the stock take first (it
 * locks the product, and BEGIN goes with it), then the order, delivered when
 * the take gave it its items, else paid (and COMMIT goes with it). With only a
 * hint (stockHints), the product's read goes in the take's round trip and the
 * purchase is checked and priced under the lock: refused, it rolls back. Tried
 * again when a re-encryption batch held some of the items, and recorded paid
 * after BUSY_RETRIES such attempts.
 */
async function purchaseFromStock (
  db: Db, cipher: StockCipher, input: PurchaseInput, known: Known
): Promise<StoredOrder> {
  let record = 'record' in known ? known.record : undefined
  for (let attempt = 0; ; attempt++) {
    try {
      const { order, eventShopId } = await pipelinedTransaction(db, async (tx) => {
        const orderId = randomUUID()
        const optionFieldId = 'record' in known ? known.optionFieldId : known.hint.optionFieldId
        const demand = {
          productId: input.productId, orderId, quantity: input.quantity, input: input.fieldValues, optionFieldId
        }
        // Both settle before anything is decided, so no statement of the take runs after a ROLLBACK.
        const [read, taken] = await Promise.allSettled([
          'record' in known ? undefined : readPurchaseProduct(tx, input.productId),
          takeForPurchase(tx, cipher, demand)
        ])
        if (read.status === 'rejected') throw read.reason
        if (!('record' in known)) record = checkedRecord(db, input, read.value)
        if (taken.status === 'rejected') throw taken.reason
        return taken.value ? recordDelivered(tx, cipher, orderId, record!, taken.value) : recordPaid(tx, record!)
      })
      notifyEvent(db, { eventShopId })
      return order
    } catch (err) {
      if (!(err instanceof StockBusyError) || record === undefined) throw err
      if (attempt === BUSY_RETRIES) {
        const { order, eventShopId } = await db.transaction((tx) => recordPaid(tx, record!))
        notifyEvent(db, { eventShopId })
        return order
      }
    }
  }
}

/** A product last read as `autoDelivery: stock`: its stock field. Only a hint; the product's lock decides. */
interface StockHint { optionFieldId: string | null }

/**
 * Per database, the products last read as `autoDelivery: stock`, so that their
 * next purchase reads the product in the take's round trip (purchaseFromStock).
 * A stale hint costs a product lock and a rollback at worst, never a wrong order.
 */
const stockHints = new WeakMap<Db, Map<string, StockHint>>()
const MAX_STOCK_HINTS = 10_000

function hintsOf (db: Db): Map<string, StockHint> {
  let hints = stockHints.get(db)
  if (!hints) stockHints.set(db, hints = new Map())
  return hints
}

/**
 * The order a purchase of `product` records (and the hint for its next
 * purchase): 404 when there is no such product, 400 when it is not on sale or
 * the input does not fit its fields.
 */
function checkedRecord (db: Db, input: PurchaseInput, product: PurchaseProductRow | undefined): PurchaseRecord {
  const hints = hintsOf(db)
  if (product?.autoDelivery === 'stock') {
    if (hints.size >= MAX_STOCK_HINTS) hints.clear()
    hints.set(input.productId, { optionFieldId: product.stockOptionFieldId })
  } else {
    hints.delete(input.productId)
  }
  if (!product) throw notFound('Product')
  if (!product.active || product.archived) {
    throw validationError('The product is not on sale.',
      [{ path: 'body.productId', message: 'must be an active, non-archived product' }])
  }
  const priced = pricePurchase(product, input.quantity, input.fieldValues)
  if (!priced.ok) {
    throw validationError(`Invalid purchase: ${priced.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`,
      priced.problems)
  }
  return {
    shopId: product.shopId,
    productId: product.id,
    productTitle: product.title,
    quantity: input.quantity,
    amount: kopecksToDecimal(priced.amountKopecks),
    fieldValues: JSON.stringify(priced.fieldValues)
  }
}

export interface PurchaseInput { productId: string, quantity: number, fieldValues: FieldValueInput[] }

export interface PurchaseOptions {
  /**
   * Decrypts stock values and seals them delivered; null (no VALUES_ENCRYPTION_KEY)
   * leaves stock products' orders paid.
   */
  cipher?: StockCipher | null
  /** Told when stock could not be read (a wrong key): the order is then recorded paid, for a person or a bot. */
  onStockUnreadable?: (err: StockKeyError) => void
}

/**
 * A buyer's paid purchase of a product (operator side): validates, prices and
 * records the order; with `autoDelivery: stock` it is delivered from stock in
 * the same transaction when the stock holds enough.
 */
export async function createPurchase (
  db: Db, input: PurchaseInput, options: PurchaseOptions = {}
): Promise<StoredOrder> {
  let stockReadable = options.cipher !== null && options.cipher !== undefined
  const hint = stockReadable ? hintsOf(db).get(input.productId) : undefined
  if (hint && options.cipher) {
    try {
      return await purchaseFromStock(db, options.cipher, input, { hint })
    } catch (err) {
      if (!(err instanceof StockKeyError)) throw err
      options.onStockUnreadable?.(err)
      stockReadable = false
    }
  }
  const product = await readPurchaseProduct(db, input.productId)
  const record = checkedRecord(db, input, product)
  if (product!.autoDelivery === 'stock' && options.cipher && stockReadable) {
    try {
      return await purchaseFromStock(db, options.cipher, input, { record, optionFieldId: product!.stockOptionFieldId })
    } catch (err) {
      if (!(err instanceof StockKeyError)) throw err
      options.onStockUnreadable?.(err)
    }
  }
  const query = preparedOnce(db, 'purchase', () => rawQuery<StoredOrder & EventOutcome>(db, paidPurchaseSql))
  const [{ eventShopId, ...order }] = await query(recordParams(record))
  notifyEvent(db, { eventShopId })
  return order
}
