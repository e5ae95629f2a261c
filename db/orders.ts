// Orders: the buyer's purchase, the seller's queue and the state machine's
// transitions. Each transition is one conditional UPDATE (status IN the allowed
// statuses) in one statement with its ledger row and its event, so no
// interleaving of requests on any number of instances can apply it twice.
import { and, eq, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { orderEventTypes } from '../domain/event-types.js'
import { isUuid } from '../domain/ids.js'
import { orderTransitions, type OrderAction, type OrderStatus } from '../domain/order-transitions.js'
import { kopecksToDecimal } from '../domain/money.js'
import { pricePurchase, type FieldValueInput } from '../domain/purchase.js'
import { StockKeyError, type StockCipher } from '../domain/stock-cipher.js'
import { ApiError, orderNotFound, validationError } from '../domain/errors.js'
import type { Order } from '../schemas/orders.js'
import type { Db, Queryable } from './client.js'
import { deliveryRequestCtes } from './delivery-requests.js'
import { appendEventCtes, notifyEvent, type EventOutcome } from './event-statements.js'
import { EVENTS_CHANNEL } from './events.js'
import { notifyAfterCommit } from './notifications.js'
import { orderResponseColumns, orderRowColumns, type OrderRow } from './order-row.js'
import { preparedOnce, rawQuery } from './prepared.js'
import { lockStockProduct } from './stock-delivery.js'
import { restockOrderItems } from './stock-items.js'
import { readPurchaseProduct } from './purchase-product.js'
import { purchaseWithStock } from './stock-purchase.js'
import { run } from './stock-statements.js'
import { orders, products } from './schema.js'
import { NOW_MS } from './sql-time.js'

/** Who is asking: a seller sees only its shop's orders of products with automation; null is the operator. */
export type OrderScope = { shopId: string } | null

/** The conditions that make an order visible in `scope` (the shop id may be a prepared query's placeholder). */
export function scopeConditions (scope: { shopId: string | Placeholder } | null): SQL[] {
  if (scope === null) return []
  return [
    eq(orders.shopId, scope.shopId),
    // Automation is a property of the product now, not of the order when bought.
    sql`exists (select 1 from ${products} where ${products.id} = ${orders.productId} and ${products.external})`
  ]
}

export async function findOrder (db: Queryable, orderId: string, scope: OrderScope): Promise<OrderRow | undefined> {
  const [row] = await db.select(orderRowColumns).from(orders).where(and(eq(orders.id, orderId), ...scopeConditions(scope)))
    .prepare(`find_order_${scope !== null}`).execute()
  return row
}

export async function getOrder (db: Queryable, orderId: string, scope: OrderScope): Promise<OrderRow> {
  const row = await findOrder(db, orderId, scope)
  if (!row) throw orderNotFound('Order')
  return row
}

export interface OrderListOptions {
  statuses: OrderStatus[]
  productId?: string
  page: number
  limit: number
  sort: 'asc' | 'desc'
}

/**
 * One statement: the total from order_counts (a few rows, whatever the backlog)
 * and the page from the index of visible orders, which is read in order and
 * stopped after offset + limit rows. Several statuses are read as one such walk
 * per status, merged. $1 shop, $2 status(es), $3 limit, $4 offset, $5 product.
 */
function listOrdersSql (sort: 'asc' | 'desc', oneStatus: boolean, byProduct: boolean): string {
  const order = `created_at ${sort}, id ${sort}`
  const product = byProduct ? ' and product_id = $5' : ''
  const page = oneStatus
    ? `select * from orders where shop_id = $1 and status = $2 and external${product}
       order by ${order} limit $3::int offset $4::int`
    : `select q.* from unnest($2::text[]) s(status) cross join lateral (
         select * from orders where shop_id = $1 and status = s.status and external${product}
         order by ${order} limit $3::int + $4::int) q
       order by ${order} limit $3::int offset $4::int`
  return `select c.total, ${orderResponseColumns('o')}
    from (
      select coalesce(sum(n.count), 0)::int as total
      from order_counts n join products p on p.id = n.product_id and p.external
      where n.shop_id = $1 and ${oneStatus ? 'n.status = $2' : 'n.status = any($2::text[])'}${byProduct ? ' and n.product_id = $5' : ''}
    ) c
    left join (${page}) o on true
    order by o.created_at ${sort}, o.id ${sort}`
}

/** One page of the shop's visible orders, ready for OrderSchema, and their total: one round trip. */
export async function listOrders (db: Db, shopId: string, options: OrderListOptions): Promise<{ orders: Order[], total: number }> {
  const oneStatus = options.statuses.length === 1
  const byProduct = options.productId !== undefined
  const shape = `list_orders_${options.sort}_${oneStatus}_${byProduct}`
  const query = preparedOnce(db, shape, () => rawQuery<Order & { total: number }>(db, listOrdersSql(options.sort, oneStatus, byProduct)))
  const params: unknown[] = [shopId, oneStatus ? options.statuses[0] : options.statuses, options.limit, (options.page - 1) * options.limit]
  if (byProduct) params.push(options.productId)
  const rows = await query(params)
  // No order on the page: the one row carries only the total.
  return { orders: rows[0].id === null ? [] : rows, total: rows[0].total }
}

/** Extra columns a transition may set besides status, its timestamp and the assignee. */
export interface TransitionChanges { deliveredValues?: string[], cancelReason?: string }

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * One transition as one statement (db/event-statements.ts): the conditional
 * UPDATE of the order, its ledger row, the event built from the very columns
 * of the response. $1 order, $2 the change's value (deliver, cancel), $3 shop.
 */
function transitionSql (action: OrderAction, scoped: boolean): string {
  const transition = orderTransitions[action]
  const sets = [`status = '${transition.to}'`, `${snake(transition.stamps)} = ${NOW_MS}`, `updated_at = ${NOW_MS}`]
  if (transition.assigneeType) sets.push(`assignee_type = '${transition.assigneeType}'`)
  if (action === 'deliver') sets.push('delivered_values = $2::text::jsonb')
  // Only a cancel sets the reason, and an order is cancelled at most once.
  if (action === 'cancel') sets.push('cancel_reason = $2::text')
  const shopParam = action === 'deliver' || action === 'cancel' ? '$3' : '$2'
  const ledger = transition.ledger === null
    ? ''
    : `l as (insert into ledger_entries (shop_id, order_id, kind, amount) select shop_id, id, '${transition.ledger}', amount from o), `
  return `with o as (
    update orders set ${sets.join(', ')}
    where id = $1 and status in (${transition.from.map((status) => `'${status}'`).join(', ')})${scoped ? ` and shop_id = ${shopParam} and external` : ''}
    returning *
  ), ${ledger}r as (
    select ${orderResponseColumns('o')} from o
  ), ${appendEventCtes({ source: 'o', condition: 'o.external', type: orderEventTypes[action], data: "jsonb_build_object('order', to_jsonb(r))", from: 'r' })}
  select r.*, case when o.external then o.shop_id end as "eventShopId" from r, o`
}

/** Nothing matched: either there is no such order here (404), or its status forbids the action (409). */
async function throwTransitionRefusal (db: Queryable, action: OrderAction, orderId: string, scope: OrderScope): Promise<never> {
  const current = await findOrder(db, orderId, scope)
  if (!current) throw orderNotFound('Order')
  throw new ApiError(409, 'ORDER_INVALID_STATUS', `Cannot ${action} an order that is ${current.status}.`)
}

/**
 * Applies `action` to the order, with its ledger row and its event, in one statement.
 * Throws 404 when the order is not visible in `scope`, 409 ORDER_INVALID_STATUS
 * when its current status does not allow the action.
 */
export async function transitionOrder (db: Db, action: OrderAction, orderId: string, scope: OrderScope, changes: TransitionChanges = {}): Promise<Order> {
  const query = preparedOnce(db, `transition_${action}_${scope !== null}`, () => rawQuery<Order & EventOutcome>(db, transitionSql(action, scope !== null)))
  const params: unknown[] = [orderId]
  if (action === 'deliver') params.push(JSON.stringify(changes.deliveredValues ?? []))
  if (action === 'cancel') params.push(changes.cancelReason ?? null)
  if (scope !== null) params.push(scope.shopId)
  const [row] = await query(params)
  if (!row) await throwTransitionRefusal(db, action, orderId, scope)
  const { eventShopId, ...order } = row
  notifyEvent(db, { eventShopId })
  return order
}

export const takeOrder = (db: Db, shopId: string, orderId: string) =>
  transitionOrder(db, 'take', orderId, { shopId })

export const deliverOrder = (db: Db, shopId: string, orderId: string, deliveredValues: string[]) =>
  transitionOrder(db, 'deliver', orderId, { shopId }, { deliveredValues })

/**
 * Cancels an order of the shop. With `restock`, the stock items delivered to it
 * become available again in the same transaction (db/stock-items.ts), which
 * first locks the product and its waiting orders, as every stock write does.
 */
export async function cancelOrder (db: Db, shopId: string, orderId: string, reason?: string, restock?: { cipher: StockCipher | null }): Promise<Order> {
  const changes = reason === undefined ? {} : { cancelReason: reason }
  const [held] = restock && isUuid(orderId)
    ? await run<{ productId: string }>(db, `select product_id as "productId" from orders
        where id = $1 and exists (select 1 from stock_items where order_id = $1 and status = 'delivered')`, [orderId])
    : []
  if (!held) return transitionOrder(db, 'cancel', orderId, { shopId }, changes)
  return db.transaction(async (tx) => {
    const product = (await lockStockProduct(tx, held.productId))!
    await run(tx, "select id from orders where product_id = $1 and status = 'paid' order by created_at, id for update", [product.id])
    const [row] = await run<Order & EventOutcome>(tx, transitionSql('cancel', true), [orderId, reason ?? null, shopId])
    if (!row) await throwTransitionRefusal(tx, 'cancel', orderId, { shopId })
    const { eventShopId, ...order } = row
    if (eventShopId !== null) notifyAfterCommit(tx, EVENTS_CHANNEL, eventShopId)
    await restockOrderItems(tx, restock!.cipher, product, orderId)
    return order
  })
}

/** The buyer confirmed receipt (operator side): awaiting_confirmation → completed, shop credited. */
export const confirmOrder = (db: Db, orderId: string) =>
  transitionOrder(db, 'confirm', orderId, null)

/**
 * The purchase as one statement (db/event-statements.ts): the order (whose
 * `external` a trigger copies from the product) and, for a product with
 * automation, its `order.paid` event; for a product with `autoDelivery:
 * endpoint`, its delivery request (db/delivery-requests.ts), whose commit wakes
 * the webhook worker with the event's notification.
 */
const purchaseSql = `with o as (
    insert into orders (shop_id, product_id, product_title, quantity, amount, field_values)
    values ($1, $2, $3, $4, $5::numeric, $6::text::jsonb)
    returning *
  ), r as (
    select ${orderResponseColumns('o')} from o
  ), ${appendEventCtes({ source: 'o', condition: 'o.external', type: 'order.paid', data: "jsonb_build_object('order', to_jsonb(r))", from: 'r' })},
  ${deliveryRequestCtes('o', 'r')}
  select r.*, case when o.external or exists (select 1 from q) then o.shop_id end as "eventShopId" from r, o`

export interface PurchaseInput { productId: string, quantity: number, fieldValues: FieldValueInput[] }

export interface PurchaseOptions {
  /** Decrypts stock values; null (no STOCK_ENCRYPTION_KEY) leaves stock products' orders paid. */
  cipher?: StockCipher | null
  /** Told when stock could not be read (a wrong key): the order is then recorded paid, for a person or a bot. */
  onStockUnreadable?: (err: StockKeyError) => void
}

/**
 * A buyer's paid purchase of a product (operator side): validates, prices and
 * records the order; with `autoDelivery: stock` it is delivered from stock in
 * the same transaction when the stock holds enough (db/stock-purchase.ts).
 */
export async function createPurchase (db: Db, input: PurchaseInput, options: PurchaseOptions = {}): Promise<Order> {
  const product = await readPurchaseProduct(db, input.productId)
  if (!product) throw orderNotFound('Product')
  if (!product.active || product.archived) {
    throw validationError('The product is not on sale.', [{ path: 'body.productId', message: 'must be an active, non-archived product' }])
  }
  const priced = pricePurchase(product, input.quantity, input.fieldValues)
  if (!priced.ok) throw validationError(`Invalid purchase: ${priced.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, priced.problems)
  const params = [product.shopId, product.id, product.title, input.quantity, kopecksToDecimal(priced.amountKopecks), JSON.stringify(priced.fieldValues)] as const
  if (product.autoDelivery === 'stock' && options.cipher) {
    const record = { shopId: product.shopId, productId: product.id, productTitle: product.title, quantity: input.quantity, amount: params[4], fieldValues: params[5] }
    try {
      return await purchaseWithStock<Order>(db, options.cipher, { record, fieldValues: input.fieldValues, optionFieldId: product.stockOptionFieldId }, async (tx) => {
        const [{ eventShopId, ...order }] = await run<Order & EventOutcome>(tx, purchaseSql, params)
        if (eventShopId !== null) notifyAfterCommit(tx, EVENTS_CHANNEL, eventShopId)
        return order
      })
    } catch (err) {
      if (!(err instanceof StockKeyError)) throw err
      options.onStockUnreadable?.(err)
    }
  }
  const record = preparedOnce(db, 'purchase', () => rawQuery<Order & EventOutcome>(db, purchaseSql))
  const [{ eventShopId, ...order }] = await record([...params])
  notifyEvent(db, { eventShopId })
  return order
}
