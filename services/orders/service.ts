// Orders (docs/orders.md): the seller's queue and its transitions, the buyer's
// purchase and confirmation (the operator API), and the order's chat. Every
// answer reveals the order's values with the stock key at hand. A transition
// is one statement (db/orders/orders.ts); a cancel with `restock` is one
// transaction here: the product's lock and its waiting orders', the cancel,
// the items back in stock, the waiting orders filled from them.
import type { FastifyInstance } from 'fastify'
import { parseDateTime } from '../../domain/date-time.js'
import { revealOrder } from '../../domain/delivered-values.js'
import { notFound } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import { deliveredValuesFrom, type OrderStatus } from '../../domain/order-transitions.js'
import type { CancelBody, DeliverBody, OrderListQuery, PurchaseBody } from '../../schemas/orders.js'
import type { MessageListQuery } from '../../schemas/messages.js'
import { lockWaitingOrders } from '../../db/orders/fulfilment.js'
import { listMessages, postMessage } from '../../db/orders/messages.js'
import {
  cancelInTransaction, confirmOrder as confirmStoredOrder, deliverOrder as deliverStoredOrder, getOrder, listOrders,
  stockProductOf, takeOrder as takeStoredOrder, transitionOrder
} from '../../db/orders/orders.js'
import { createPurchase } from '../../db/orders/purchase.js'
import { orderView, type StoredOrder } from '../../db/orders/row.js'
import { returnOrderItems } from '../../db/stock/items.js'
import { lockStockProduct } from '../../db/stock/take.js'
import { fillWaitingOrders } from './fulfilment.js'

type OrderApp = Pick<FastifyInstance, 'db' | 'stockCipher'>

const revealed = (app: OrderApp, order: StoredOrder) => revealOrder(order, app.stockCipher)

/** A page of the shop's visible orders of the statuses `query.status` names, and their total. */
export async function listShopOrders (app: OrderApp, shopId: string, query: OrderListQuery) {
  const { status, productId, page, limit, sort } = query
  const statuses = [...new Set(status.split(','))] as OrderStatus[]
  const { orders, total } = await listOrders(app.db, shopId, { statuses, productId, page, limit, sort })
  return { orders: orders.map((order) => revealed(app, order)), total, page, limit }
}

/** One order of the shop; 404 ORDER_NOT_FOUND when it is not visible to it. */
export async function getShopOrder (app: OrderApp, shopId: string, orderId: string) {
  return revealed(app, orderView(await getOrder(app.db, orderId, { shopId })))
}

/** `paid` → `processing`, by the shop. */
export async function takeOrder (app: OrderApp, shopId: string, orderId: string) {
  return revealed(app, await takeStoredOrder(app.db, shopId, orderId))
}

/** `processing` → `awaiting_confirmation` with the values the body attaches, sealed with the key. */
export async function deliverOrder (app: OrderApp, shopId: string, orderId: string, body: DeliverBody) {
  return revealed(app,
    await deliverStoredOrder(app.db, shopId, orderId, deliveredValuesFrom(body), app.stockCipher))
}

/**
 * Cancels an order of the shop. With `restock`, the stock items delivered to it
 * become available again in the same transaction, and the product's waiting
 * orders are filled from them; it first locks the product and its waiting
 * orders, as every stock write does.
 */
export async function cancelOrder (app: OrderApp, shopId: string, orderId: string, body: CancelBody) {
  const reason = body?.reason
  const productId = body?.restock === true && isUuid(orderId) ? await stockProductOf(app.db, orderId) : undefined
  if (productId === undefined) {
    const changes = reason === undefined ? {} : { cancelReason: reason }
    return revealed(app, await transitionOrder(app.db, 'cancel', orderId, { shopId }, changes))
  }
  const cipher = app.stockCipher
  const order = await app.db.transaction(async (tx) => {
    const product = (await lockStockProduct(tx, productId))!
    await lockWaitingOrders(tx, product.id)
    const cancelled = await cancelInTransaction(tx, shopId, orderId, reason)
    const restocked = await returnOrderItems(tx, product, orderId)
    if (restocked && cipher) await fillWaitingOrders(tx, cipher, restocked)
    return cancelled
  })
  return revealed(app, order)
}

/** The buyer's purchase, relayed by the operator; a stock the key cannot read leaves the order waiting. */
export async function purchase (app: OrderApp, body: PurchaseBody, onStockUnreadable?: (err: Error) => void) {
  return revealed(app, await createPurchase(app.db, body, { cipher: app.stockCipher, onStockUnreadable }))
}

/** The buyer confirmed receipt (operator side): awaiting_confirmation → completed, shop credited. */
export async function confirmOrder (app: OrderApp, orderId: string) {
  return revealed(app, await confirmStoredOrder(app.db, orderId))
}

/** The order's chat after `query.cursor`, oldest first, and the cursor of the next read. */
export async function readChat (app: OrderApp, shopId: string, orderId: string, query: MessageListQuery) {
  // The instant as the API writes it (UTC, milliseconds), the same for the query and the echo.
  const cursor = query.cursor === undefined ? undefined : parseDateTime(query.cursor)!.toISOString()
  const messages = await listMessages(app.db, shopId, orderId, cursor, query.limit)
  if (messages === undefined) throw notFound('Order')
  return { messages, nextCursor: messages.at(-1)?.createdAt ?? cursor ?? null }
}

/** The shop's message in the order's chat. */
export function postSellerMessage (app: OrderApp, shopId: string, orderId: string, text: string) {
  return postMessage(app.db, orderId, { shopId }, 'seller', text)
}

export { ledgerView, listLedgerEntries } from '../../db/orders/ledger.js'
export { listMessages, systemMessageMeanings } from '../../db/orders/messages.js'
