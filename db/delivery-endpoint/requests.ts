// Delivery requests (docs/delivery-endpoint.md): an order's request for its goods
// to the shop's delivery endpoint. A request is a row of the webhook queue
// (webhook_deliveries, kind `delivery_request`, webhook-id = its id), written
// in the purchase's own statement, leased, signed and sent by the webhook
// worker like any delivery. Here: what the purchase adds, what an answer does,
// and the API's read and retry.
//
// Exactly once: an answer is used only under the request row's lock, only while
// the request is `pending`, and the order changes only while it is `paid` — so
// whichever instance and however many answers arrive, one answer's values
// deliver the order, and the rest are logged as not used.
import { DELIVERY_REQUEST_TYPE } from '../../domain/event-types.js'
import type { Db, Queryable, Tx } from '../core/client.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { notifyAfterCommit, notifyCommitted } from '../core/notifications.js'
import { appendEventRowsCtes } from '../events/statements.js'
import { orderJson } from '../orders/row.js'
import { deliverFromEndpoint } from '../orders/auto-delivery.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import { run } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'
import { retryDelayMs } from '../../domain/webhook-retry.js'
import type { LeasedSend } from '../webhooks/queue.js'

export type DeliveryRequestStatus = 'pending' | 'succeeded' | 'failed' | 'discarded'

export interface DeliveryAttempt { at: string, statusCode: number | null, error: string | null, durationMs: number }

export interface DeliveryRequestRow {
  id: string
  orderId: string
  status: DeliveryRequestStatus
  attempts: DeliveryAttempt[]
  nextAttemptAt: string | null
  createdAt: string
  updatedAt: string
}

/**
 * CTEs for the purchase's statement (db/orders/orders.ts): when the product of order
 * `o` has `autoDelivery: endpoint` and the shop has a delivery endpoint, its
 * delivery request, due now, whose body carries the order as `r` reads. `q`
 * returns the request's id.
 */
export const deliveryRequestCtes = (o: string, r: string) => `g as (select gen_random_uuid() as id), q as (
    insert into webhook_deliveries (id, endpoint_id, webhook_id, event_type, kind, order_id, payload,
      next_attempt_at, updated_at)
    select g.id, de.id, g.id, '${DELIVERY_REQUEST_TYPE}', 'delivery_request', ${o}.id,
      jsonb_build_object('timestamp', ${isoTime(NOW_MS)}, 'data', jsonb_build_object('order', to_jsonb(${r}),
        'test', false)),
      now(), ${NOW_MS}
    from ${o}
      join products p on p.id = ${o}.product_id and p.auto_delivery = 'endpoint'
      join webhook_endpoints de on de.shop_id = ${o}.shop_id and de.purpose = 'delivery',
      g, ${r}
    returning id
  )`

const requestColumns = `d.id, d.order_id as "orderId", d.status, d.attempt_log as attempts,
  ${isoTime('d.next_attempt_at')} as "nextAttemptAt", ${isoTime('d.created_at')} as "createdAt",
  ${isoTime('coalesce(d.updated_at, d.created_at)')} as "updatedAt"`

/** The order's request, when the order is the shop's (and visible to it) and had one. */
export async function findDeliveryRequest (
  db: Queryable, shopId: string, orderId: string
): Promise<DeliveryRequestRow | undefined> {
  const [row] = await run<DeliveryRequestRow>(db, `select ${requestColumns} from webhook_deliveries d
    join orders o on o.id = d.order_id
    where d.order_id = $1 and d.kind = 'delivery_request' and o.shop_id = $2 and o.external`, [orderId, shopId])
  return row
}

export type RetryRefusal = 'no-request' | 'no-endpoint' | 'invalid-status'

/**
 * A fresh round of attempts, due now, to the shop's current delivery endpoint:
 * only from `failed` and only while the order is `paid`. The attempts list is kept.
 */
export async function retryDeliveryRequest (
  db: Db, shopId: string, orderId: string
): Promise<{ request: DeliveryRequestRow } | { refused: RetryRefusal, status?: string }> {
  const [row] = await run<DeliveryRequestRow>(db,
    `update webhook_deliveries d set status = 'pending', attempts = 0, next_attempt_at = now(),
      endpoint_id = de.id, last_error = null, lease_token = null, leased_until = null, updated_at = ${NOW_MS}
    from orders o, webhook_endpoints de
    where d.order_id = $1 and d.kind = 'delivery_request' and d.status = 'failed'
      and o.id = d.order_id and o.shop_id = $2 and o.external and o.status = 'paid'
      and de.shop_id = $2 and de.purpose = 'delivery'
    returning ${requestColumns}`, [orderId, shopId])
  if (row) {
    notifyCommitted(db, EVENTS_CHANNEL, shopId)
    return { request: row }
  }
  const request = await findDeliveryRequest(db, shopId, orderId)
  if (!request) return { refused: 'no-request' }
  const [order] = await run<{ status: string }>(db, 'select status from orders where id = $1', [orderId])
  if (request.status !== 'failed' || order.status !== 'paid') {
    return {
      refused: 'invalid-status',
      status: request.status !== 'failed' ? `request ${request.status}` : `order ${order.status}`
    }
  }
  return { refused: 'no-endpoint' }
}

/** What an attempt came to, for the log and the metrics. */
export type RequestOutcome = 'succeeded' | 'discarded' | 'retried' | 'failed' | 'not_used'

interface AnswerOfAttempt {
  statusCode: number | null
  durationMs: number
  /** The values of a valid answer; null when the attempt failed. */
  values: string[] | null
  /** Why it failed, in words; null for a valid answer. */
  error: string | null
  /** 409 / 422: the endpoint cannot supply; no further attempt. */
  final: boolean
}

const LOCKED_REQUEST = `select d.status, d.lease_token as "leaseToken", d.attempts, d.order_id as "orderId",
    o.shop_id as "shopId"
  from webhook_deliveries d join orders o on o.id = d.order_id where d.id = $1 for update of d`

/**
 * Records one attempt of a delivery request and what it led to, in one
 * transaction: a valid answer delivers the order (db/orders/auto-delivery.ts,
 * with its order.delivered event) while the request is
 * pending and the order paid, else it is `discarded` (order no longer paid) or
 * not used (the request had ended); a failed attempt is tried again after the
 * schedule, or ends the request `failed` with order.delivery_failed. Returns
 * the outcome and, on delivery, how long after the purchase it came. The
 * answer's values are stored sealed by `cipher` (db/orders/row.ts).
 */
export async function recordRequestAttempt (
  db: Db, cipher: StockCipher | null, leased: LeasedSend, answer: AnswerOfAttempt, retrySchedule: number[]
): Promise<{ outcome: RequestOutcome, sincePurchaseMs?: number }> {
  return db.transaction(async (tx) => {
    const [request] = await run<{
      status: DeliveryRequestStatus,
      leaseToken: string | null,
      attempts: number,
      orderId: string,
      shopId: string
    }>(tx, LOCKED_REQUEST, [leased.id])
    if (!request) return { outcome: 'not_used' as const }
    const logAttempt = async (error: string | null, changes = '') => {
      await run(tx, `update webhook_deliveries set attempt_log = attempt_log || jsonb_build_array(jsonb_build_object(
          'at', ${isoTime(NOW_MS)}, 'statusCode', $2::int, 'error', $3::text, 'durationMs', $4::int)),
          last_status_code = $2::int, updated_at = ${NOW_MS}${changes}
        where id = $1`, [leased.id, answer.statusCode, error, answer.durationMs])
    }
    const leaseHeld = request.leaseToken === leased.leaseToken
    const endLease = leaseHeld ? ', lease_token = null, leased_until = null' : ''
    if (answer.values !== null) {
      if (request.status !== 'pending') {
        await logAttempt('Answer not used: the request had already ' +
          `${request.status === 'succeeded' ? 'delivered the order' : `ended (${request.status})`}.`)
        return { outcome: 'not_used' as const }
      }
      const delivered = await deliverFromEndpoint(tx, cipher, request.shopId, request.orderId, answer.values)
      if (delivered) {
        await logAttempt(null, ', status = \'succeeded\', next_attempt_at = null, last_error = null, ' +
          'lease_token = null, leased_until = null')
        return { outcome: 'succeeded' as const, sincePurchaseMs: delivered.sincePurchaseMs }
      }
      const [order] = await run<{ status: string }>(tx, 'select status from orders where id = $1', [request.orderId])
      const why = `Answer not used: the order is ${order.status}, no longer paid.`
      await logAttempt(why, ', status = \'discarded\', next_attempt_at = null, last_error = $3::text, ' +
        'lease_token = null, leased_until = null')
      return { outcome: 'discarded' as const }
    }
    // A failure decides the schedule only for the lease that holds the request.
    if (request.status !== 'pending' || !leaseHeld) {
      await logAttempt(answer.error)
      return { outcome: 'not_used' as const }
    }
    const delayMs = answer.final ? null : retryDelayMs(request.attempts, retrySchedule)
    if (delayMs !== null) {
      await logAttempt(answer.error, `, next_attempt_at = ${NOW_MS} + make_interval(secs => ` +
        `${delayMs / 1000}), last_error = $3::text${endLease}`)
      return { outcome: 'retried' as const }
    }
    await logAttempt(answer.error, `, status = 'failed', next_attempt_at = null, last_error = $3::text${endLease}`)
    await failedEvents(tx, request.shopId, [request.orderId], answer.error ?? 'The delivery request failed.')
    return { outcome: 'failed' as const }
  })
}

/** order.delivery_failed {order, reason} for each of `orderIds` (visible orders only), in one statement. */
export async function failedEvents (tx: Tx, shopId: string, orderIds: string[], reason: string): Promise<void> {
  if (orderIds.length === 0) return
  await run(tx, `with o as (select * from orders
      where id in (select jsonb_array_elements_text($2::text::jsonb)::uuid) and external),
    evs as (
      select row_number() over (order by o.created_at, o.id) as ord, 'order.delivery_failed' as type,
        jsonb_build_object('order', ${orderJson('o')}, 'reason', $3::text) as data from o
    ), ${appendEventRowsCtes('evs', '$1')}
    select 1`, [shopId, JSON.stringify(orderIds), reason])
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
}

/**
 * Before a request is sent: when its order has left `paid` (taken or cancelled
 * meanwhile; the lease read its status) nothing is asked of the seller and the
 * request ends `discarded`. Returns whether to send.
 */
export async function requestStillWanted (db: Db, leased: LeasedSend): Promise<boolean> {
  if (leased.orderStatus === 'paid') return true
  await run(db, `update webhook_deliveries set status = 'discarded', next_attempt_at = null, last_error = $3::text,
      lease_token = null, leased_until = null, updated_at = ${NOW_MS}
    where id = $1 and lease_token = $2 and status = 'pending'`,
  [leased.id, leased.leaseToken, `Not sent: the order is ${leased.orderStatus ?? 'gone'}, no longer paid.`])
  return false
}

/** The shop's newest delivery requests (the portal's Delivery endpoint page), newest order first. */
export async function listRecentDeliveryRequests (
  db: Queryable, shopId: string, limit: number
): Promise<DeliveryRequestRow[]> {
  return run<DeliveryRequestRow>(db, `select ${requestColumns} from orders o
    join webhook_deliveries d on d.order_id = o.id and d.kind = 'delivery_request'
    where o.shop_id = $1 and o.external
    order by o.created_at desc, o.id desc limit $2`, [shopId, limit])
}
