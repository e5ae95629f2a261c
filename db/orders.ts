// Orders: the buyer's purchase, the seller's queue and the state machine's
// transitions. Each transition is one conditional UPDATE (status IN the allowed
// statuses) in one transaction with its ledger row, so no interleaving of
// requests on any number of instances can apply it twice.
import { and, asc, desc, eq, inArray, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { orderEventTypes } from '../domain/event-types.js'
import { orderTransitions, type OrderAction, type OrderStatus } from '../domain/order-transitions.js'
import { kopecksToDecimal } from '../domain/money.js'
import { pricePurchase, type FieldValueInput } from '../domain/purchase.js'
import { ApiError, notFound, validationError } from '../plugins/errors.js'
import { orderView, type OrderRow } from '../schemas/orders.js'
import type { Db, Queryable } from './client.js'
import { recordEvent } from './events.js'
import { preparedOnce } from './prepared.js'
import { ledgerEntries, orders, productFieldOptions, productFields, products } from './schema.js'

/** Who is asking: a seller sees only its shop's orders of products with automation; null is the operator. */
export type OrderScope = { shopId: string } | null

const orderColumns = {
  id: orders.id,
  status: orders.status,
  createdAt: orders.createdAt,
  productId: orders.productId,
  productTitle: orders.productTitle,
  quantity: orders.quantity,
  amount: orders.amount,
  fieldValues: orders.fieldValues,
  assigneeType: orders.assigneeType,
  deliveredValues: orders.deliveredValues,
  takenAt: orders.takenAt,
  deliveredAt: orders.deliveredAt
}

const nowMs = sql`date_trunc('milliseconds', now())`

/** Whether the order's product has automation now: only such orders produce events. */
const productIsExternal = sql<boolean>`(select ${products.external} from ${products} where ${products.id} = ${orders.productId})`

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
  const [row] = await db.select(orderColumns).from(orders).where(and(eq(orders.id, orderId), ...scopeConditions(scope)))
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

function listOrdersQuery (db: Queryable, sort: 'asc' | 'desc', oneStatus: boolean, byProduct: boolean) {
  const direction = sort === 'desc' ? desc : asc
  return db.select({ ...orderColumns, total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(orders)
    .innerJoin(products, eq(products.id, orders.productId))
    .where(and(
      eq(orders.shopId, sql.placeholder('shopId')),
      // One status (the common case) keeps the index order; several are matched as an array.
      oneStatus ? eq(orders.status, sql.placeholder('status')) : sql`${orders.status} = any(${sql.placeholder('statuses')})`,
      byProduct ? eq(orders.productId, sql.placeholder('productId')) : undefined,
      eq(products.external, true)
    ))
    .orderBy(direction(orders.createdAt), direction(orders.id))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(`list_orders_${sort}_${oneStatus}_${byProduct}`)
}

/** One page of the shop's visible orders and their total, in one round trip. */
export async function listOrders (db: Queryable, shopId: string, options: OrderListOptions): Promise<{ rows: OrderRow[], total: number }> {
  const oneStatus = options.statuses.length === 1
  const byProduct = options.productId !== undefined
  const query = preparedOnce(db, `list_orders_${options.sort}_${oneStatus}_${byProduct}`,
    () => listOrdersQuery(db, options.sort, oneStatus, byProduct))
  const rows = await query.execute({
    shopId,
    status: options.statuses[0],
    statuses: options.statuses,
    productId: options.productId,
    limit: options.limit,
    offset: (options.page - 1) * options.limit
  })
  if (rows.length > 0) return { rows, total: rows[0].total }
  if (options.page === 1) return { rows: [], total: 0 }
  // Past the last page the window has no row to ride on: count separately.
  const [{ total }] = await db.select({ total: sql<number>`count(*)`.mapWith(Number) })
    .from(orders)
    .innerJoin(products, eq(products.id, orders.productId))
    .where(and(
      eq(orders.shopId, shopId),
      inArray(orders.status, options.statuses),
      byProduct ? eq(orders.productId, options.productId!) : undefined,
      eq(products.external, true)
    ))
  return { rows: [], total }
}

/** Extra columns a transition may set besides status, its timestamp and the assignee. */
export interface TransitionChanges { deliveredValues?: string[], cancelReason?: string }

/**
 * Applies `action` to the order, with its ledger row and its event, in one transaction.
 * Throws 404 when the order is not visible in `scope`, 409 ORDER_INVALID_STATUS
 * when its current status does not allow the action.
 */
export async function transitionOrder (db: Db, action: OrderAction, orderId: string, scope: OrderScope, changes: TransitionChanges = {}): Promise<OrderRow> {
  const transition = orderTransitions[action]
  return db.transaction(async (tx) => {
    const [row] = await tx.update(orders)
      .set({
        ...changes,
        status: transition.to,
        [transition.stamps]: nowMs,
        ...(transition.assigneeType ? { assigneeType: transition.assigneeType } : {}),
        updatedAt: nowMs
      })
      .where(and(eq(orders.id, orderId), inArray(orders.status, transition.from), ...scopeConditions(scope)))
      .returning({ ...orderColumns, shopId: orders.shopId, external: productIsExternal })
    if (!row) {
      // Nothing matched: either there is no such order here, or its status forbids the action.
      const current = await findOrder(tx, orderId, scope)
      if (!current) throw notFound('Order')
      throw new ApiError(409, 'ORDER_INVALID_STATUS', `Cannot ${action} an order that is ${current.status}.`)
    }
    if (transition.ledger !== null) {
      await tx.insert(ledgerEntries).values({ shopId: row.shopId, orderId: row.id, kind: transition.ledger, amount: row.amount })
    }
    const { shopId, external, ...order } = row
    if (external) await recordEvent(tx, { shopId, type: orderEventTypes[action], data: { order: orderView(order) } })
    return order
  })
}

export const takeOrder = (db: Db, shopId: string, orderId: string) =>
  transitionOrder(db, 'take', orderId, { shopId })

export const deliverOrder = (db: Db, shopId: string, orderId: string, deliveredValues: string[]) =>
  transitionOrder(db, 'deliver', orderId, { shopId }, { deliveredValues })

export const cancelOrder = (db: Db, shopId: string, orderId: string, reason?: string) =>
  transitionOrder(db, 'cancel', orderId, { shopId }, reason === undefined ? {} : { cancelReason: reason })

/** The buyer confirmed receipt (operator side): awaiting_confirmation → completed, shop credited. */
export const confirmOrder = (db: Db, orderId: string) =>
  transitionOrder(db, 'confirm', orderId, null)

export interface PurchaseInput { productId: string, quantity: number, fieldValues: FieldValueInput[] }

/** A buyer's paid purchase of a product (operator side): validates, prices and records the order. */
export async function createPurchase (db: Db, input: PurchaseInput): Promise<OrderRow> {
  const product = await db.query.products.findFirst({
    where: eq(products.id, input.productId),
    with: {
      currencyRate: { columns: { rate: true } },
      fields: { orderBy: [asc(productFields.position)], with: { options: { orderBy: [asc(productFieldOptions.position)] } } }
    }
  })
  if (!product) throw notFound('Product')
  if (!product.active || product.archived) {
    throw validationError('The product is not on sale.', [{ path: 'body.productId', message: 'must be an active, non-archived product' }])
  }
  const priced = pricePurchase({ price: product.price, rate: product.currencyRate?.rate ?? null, fields: product.fields }, input.quantity, input.fieldValues)
  if (!priced.ok) throw validationError(`Invalid purchase: ${priced.problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, priced.problems)
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(orders).values({
      shopId: product.shopId,
      productId: product.id,
      productTitle: product.title,
      quantity: input.quantity,
      amount: kopecksToDecimal(priced.amountKopecks),
      fieldValues: priced.fieldValues
    }).returning(orderColumns)
    if (product.external) await recordEvent(tx, { shopId: product.shopId, type: 'order.paid', data: { order: orderView(row) } })
    return row
  })
}
