// Orders: the seller's queue and the state machine's transitions (the buyer's
// purchase: db/orders/purchase.ts; the service's own fulfilment:
// db/orders/fulfilment.ts). Each transition is one conditional UPDATE (status
// IN the allowed statuses) in one statement with its ledger row and its event,
// so no interleaving of requests on any number of instances can apply it twice.
import { and, eq, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { orderEventTypes } from '../../domain/event-types.js'
import { orderTransitions, type OrderAction, type OrderStatus } from '../../domain/order-transitions.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import { ApiError, notFound } from '../../domain/errors.js'
import type { Db, Queryable, Tx } from '../core/client.js'
import { appendEventCtes, notifyEvent, type EventOutcome } from '../events/statements.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { deliveredValuesParam, orderResponseColumns, orderRowColumns, type OrderRow, type StoredOrder } from './row.js'
import { transitionFrom, transitionSet } from './transition-sql.js'
import { preparedOnce, rawQuery, run } from '../core/sql.js'
import { orders, products } from '../tables.js'

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
  const [row] = await db.select(orderRowColumns).from(orders)
    .where(and(eq(orders.id, orderId), ...scopeConditions(scope)))
    .prepare(`find_order_${scope !== null}`).execute()
  return row
}

export async function getOrder (db: Queryable, orderId: string, scope: OrderScope): Promise<OrderRow> {
  const row = await findOrder(db, orderId, scope)
  if (!row) throw notFound('Order')
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
      where n.shop_id = $1
        and ${oneStatus ? 'n.status = $2' : 'n.status = any($2::text[])'}${byProduct ? ' and n.product_id = $5' : ''}
    ) c
    left join (${page}) o on true
    order by o.created_at ${sort}, o.id ${sort}`
}

/** One page of the shop's visible orders, ready for OrderSchema, and their total: one round trip. */
export async function listOrders (
  db: Db, shopId: string, options: OrderListOptions
): Promise<{ orders: StoredOrder[], total: number }> {
  const oneStatus = options.statuses.length === 1
  const byProduct = options.productId !== undefined
  const shape = `list_orders_${options.sort}_${oneStatus}_${byProduct}`
  const query = preparedOnce(db, shape,
    () => rawQuery<StoredOrder & { total: number }>(db, listOrdersSql(options.sort, oneStatus, byProduct)))
  const params: unknown[] = [
    shopId, oneStatus ? options.statuses[0] : options.statuses, options.limit, (options.page - 1) * options.limit
  ]
  if (byProduct) params.push(options.productId)
  const rows = await query(params)
  // No order on the page: the one row carries only the total.
  return { orders: rows[0].id === null ? [] : rows, total: rows[0].total }
}

/** The transitions asked for through the API (autoDeliver is the service's own: db/orders/fulfilment.ts). */
type SellerAction = Exclude<OrderAction, 'autoDeliver'>

/** Extra columns a transition may set besides status, its timestamp and the assignee. */
export interface TransitionChanges {
  deliveredValues?: string[]
  /** Seals the delivered values (deliveredValuesParam); null: no key, stored plain. */
  cipher?: StockCipher | null
  cancelReason?: string
}

/**
 * One transition as one statement (db/events/statements.ts): the conditional
 * UPDATE of the order (db/orders/transition-sql.ts), its ledger row, the event
 * built from the very columns of the response. $1 order, $2 the change's value
 * (deliver, cancel), $3 shop.
 */
function transitionSql (action: Exclude<OrderAction, 'autoDeliver'>, scoped: boolean): string {
  const transition = orderTransitions[action]
  // Only a cancel sets the reason, and an order is cancelled at most once.
  const set = transitionSet(action, action === 'deliver' ? '$2::text::jsonb' : undefined) +
    (action === 'cancel' ? ', cancel_reason = $2::text' : '')
  const shopParam = action === 'deliver' || action === 'cancel' ? '$3' : '$2'
  const ledger = transition.ledger === null
    ? ''
    : `l as (insert into ledger_entries (shop_id, order_id, kind, amount)
      select shop_id, id, '${transition.ledger}', amount from o), `
  return `with o as (
    update orders set ${set}
    where id = $1 and ${transitionFrom(action)}${scoped ? ` and shop_id = ${shopParam} and external` : ''}
    returning *
  ), ${ledger}r as (
    select ${orderResponseColumns('o')} from o
  ), ${appendEventCtes({
    source: 'o',
    condition: 'o.external',
    type: orderEventTypes[action],
    data: "jsonb_build_object('order', to_jsonb(r))",
    from: 'r'
  })}
  select r.*, case when o.external then o.shop_id end as "eventShopId" from r, o`
}

/** Nothing matched: either there is no such order here (404), or its status forbids the action (409). */
async function throwTransitionRefusal (
  db: Queryable, action: SellerAction, orderId: string, scope: OrderScope
): Promise<never> {
  const current = await findOrder(db, orderId, scope)
  if (!current) throw notFound('Order')
  throw new ApiError('ORDER_INVALID_STATUS', `Cannot ${action} an order that is ${current.status}.`)
}

/**
 * Applies `action` to the order, with its ledger row and its event, in one statement.
 * Throws 404 when the order is not visible in `scope`, 409 ORDER_INVALID_STATUS
 * when its current status does not allow the action.
 */
export async function transitionOrder (
  db: Db, action: SellerAction, orderId: string, scope: OrderScope, changes: TransitionChanges = {}
): Promise<StoredOrder> {
  const query = preparedOnce(db, `transition_${action}_${scope !== null}`,
    () => rawQuery<StoredOrder & EventOutcome>(db, transitionSql(action, scope !== null)))
  const params: unknown[] = [orderId]
  if (action === 'deliver') {
    params.push(deliveredValuesParam(changes.cipher ?? null, orderId, changes.deliveredValues ?? []))
  }
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

export const deliverOrder = (
  db: Db, shopId: string, orderId: string, deliveredValues: string[], cipher: StockCipher | null
) =>
  transitionOrder(db, 'deliver', orderId, { shopId }, { deliveredValues, cipher })

/** The product of the order when stock items were delivered to it (a cancel with `restock` returns them). */
export async function stockProductOf (db: Queryable, orderId: string): Promise<string | undefined> {
  const [held] = await run<{ productId: string }>(db, `select product_id as "productId" from orders
    where id = $1 and exists (select 1 from stock_items where order_id = $1 and status = 'delivered')`, [orderId])
  return held?.productId
}

/**
 * The shop's cancel inside a transaction that holds the product's lock and its
 * waiting orders' (a cancel with `restock`, services/orders/service.ts).
 */
export async function cancelInTransaction (
  tx: Tx, shopId: string, orderId: string, reason: string | undefined
): Promise<StoredOrder> {
  const [row] = await run<StoredOrder & EventOutcome>(tx, transitionSql('cancel', true),
    [orderId, reason ?? null, shopId])
  if (!row) await throwTransitionRefusal(tx, 'cancel', orderId, { shopId })
  const { eventShopId, ...order } = row
  if (eventShopId !== null) notifyAfterCommit(tx, EVENTS_CHANNEL, eventShopId)
  return order
}

/** The buyer confirmed receipt (operator side): awaiting_confirmation → completed, shop credited. */
export const confirmOrder = (db: Db, orderId: string) =>
  transitionOrder(db, 'confirm', orderId, null)
