// Delivery requests (docs/delivery-endpoint.md): an order's request for its goods
// to the shop's delivery endpoint. A request is a row of the webhook queue
// (webhook_deliveries, kind `delivery_request`, webhook-id = its id), written
// in the purchase's own statement, leased, signed and sent by the webhook
// worker like any attempt. Here: what the purchase adds, the statements of an
// answer (services/delivery-endpoint/requests.ts decides what it does), and the
// API's read and retry.
//
// Exactly once: an answer is used only under the request row's lock, only while
// the request is `pending`, and the order changes only while it is `paid` — so
// whichever instance and however many answers arrive, one answer's values
// deliver the order, and the rest are logged as not used.
import { failureText, type AttemptFailure } from '../../domain/attempt-failures.js'
import type { DeliveryRequestStatus } from '../../domain/delivery-answer.js'
import { DELIVERY_REQUEST_TYPE } from '../../domain/event-types.js'
import type { Db, Queryable, Tx } from '../core/client.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { notifyCommitted } from '../core/notifications.js'
import { run } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'
import type { LeasedSend } from '../webhooks/queue.js'

export type { DeliveryRequestStatus }

export interface DeliveryAttempt { at: string, statusCode: number | null, error: string | null, durationMs: number }
/** An attempt as the portal reads it: with why it failed as a kind (absent on attempts before 0021). */
export interface LoggedDeliveryAttempt extends DeliveryAttempt { failure?: AttemptFailure | null }

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

/** The request's columns; its attempts as the API shows them, or with their `failure` kinds for the portal. */
const columnsOf = (attempts: string) => `d.id, d.order_id as "orderId", d.status, ${attempts} as attempts,
  ${isoTime('d.next_attempt_at')} as "nextAttemptAt", ${isoTime('d.created_at')} as "createdAt",
  ${isoTime('coalesce(d.updated_at, d.created_at)')} as "updatedAt"`
const requestColumns = columnsOf(`(select coalesce(jsonb_agg(a - 'failure' order by n), '[]'::jsonb)
  from jsonb_array_elements(d.attempt_log) with ordinality as logged (a, n))`)

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

export interface AnswerOfAttempt {
  statusCode: number | null
  durationMs: number
  /** The values of a valid answer; null when the attempt failed. */
  values: string[] | null
  /** Why it failed; null for a valid answer. */
  failure: AttemptFailure | null
  /** 409 / 422: the endpoint cannot supply; no further attempt. */
  final: boolean
}

/** A delivery request read under its row lock, with its order and shop. */
export interface LockedRequest {
  status: DeliveryRequestStatus
  leaseToken: string | null
  attempts: number
  orderId: string
  shopId: string
}

/** Locks the request's row and reads it; undefined when it is gone. */
export async function lockRequest (tx: Tx, requestId: string): Promise<LockedRequest | undefined> {
  const [request] = await run<LockedRequest>(tx, `select d.status, d.lease_token as "leaseToken", d.attempts,
      d.order_id as "orderId", o.shop_id as "shopId"
    from webhook_deliveries d join orders o on o.id = d.order_id where d.id = $1 for update of d`, [requestId])
  return request
}

/** What an attempt's record changes besides its log: the request's status and schedule. */
export type RequestChange =
  | { status: 'succeeded' | 'discarded', endLease: true }
  | { status: 'failed', endLease: boolean }
  | { retryInMs: number, endLease: boolean }
  | null

/**
 * Appends the attempt (its time, status code, why it failed — in the API's words and as
 * a kind — and duration) to the request's log, with the `change` to its status, schedule and lease.
 */
export async function logRequestAttempt (
  tx: Tx, requestId: string, answer: AnswerOfAttempt, failure: AttemptFailure | null, change: RequestChange
): Promise<void> {
  let changes = ''
  if (change !== null) {
    const endLease = change.endLease ? ', lease_token = null, leased_until = null' : ''
    if ('retryInMs' in change) {
      changes = `, next_attempt_at = ${NOW_MS} + make_interval(secs => ${change.retryInMs / 1000}), ` +
        `last_error = $3::text, last_error_detail = $5::text::jsonb${endLease}`
    } else {
      const [lastError, detail] = change.status === 'succeeded' ? ['null', 'null'] : ['$3::text', '$5::text::jsonb']
      changes = `, status = '${change.status}', next_attempt_at = null, last_error = ${lastError}, ` +
        `last_error_detail = ${detail}${endLease}`
    }
  }
  await run(tx, `update webhook_deliveries set attempt_log = attempt_log || jsonb_build_array(jsonb_build_object(
      'at', ${isoTime(NOW_MS)}, 'statusCode', $2::int, 'error', $3::text, 'durationMs', $4::int,
      'failure', $5::text::jsonb)),
      last_status_code = $2::int, updated_at = ${NOW_MS}${changes}
    where id = $1`, [requestId, answer.statusCode, failure === null ? null : failureText(failure), answer.durationMs,
    failure === null ? null : JSON.stringify(failure)])
}

/** Ends the pending delivery requests to the endpoint `failed`, saying `why`; returns their orders. */
export async function failPendingRequests (tx: Tx, endpointId: string, why: AttemptFailure): Promise<string[]> {
  const failed = await run<{ orderId: string }>(tx,
    `update webhook_deliveries set status = 'failed', next_attempt_at = null, last_error = $2,
      last_error_detail = $3::text::jsonb, lease_token = null, leased_until = null, updated_at = ${NOW_MS}
    where endpoint_id = $1 and kind = 'delivery_request' and status = 'pending'
    returning order_id as "orderId"`, [endpointId, failureText(why), JSON.stringify(why)])
  return failed.map((f) => f.orderId)
}

/**
 * Before a request is sent: when its order has left `paid` (taken or cancelled
 * meanwhile; the lease read its status) nothing is asked of the seller and the
 * request ends `discarded`. Returns whether to send.
 */
export async function requestStillWanted (db: Db, leased: LeasedSend): Promise<boolean> {
  if (leased.orderStatus === 'paid') return true
  const why: AttemptFailure = { kind: 'notPaid', orderStatus: leased.orderStatus, sent: false }
  await run(db, `update webhook_deliveries set status = 'discarded', next_attempt_at = null, last_error = $3::text,
      last_error_detail = $4::text::jsonb, lease_token = null, leased_until = null, updated_at = ${NOW_MS}
    where id = $1 and lease_token = $2 and status = 'pending'`,
  [leased.id, leased.leaseToken, failureText(why), JSON.stringify(why)])
  return false
}

/** The shop's newest delivery requests (the portal's Delivery endpoint page), newest order first. */
export async function listRecentDeliveryRequests (
  db: Queryable, shopId: string, limit: number
): Promise<Array<DeliveryRequestRow & { attempts: LoggedDeliveryAttempt[] }>> {
  return run<DeliveryRequestRow & { attempts: LoggedDeliveryAttempt[] }>(db, `select ${columnsOf('d.attempt_log')}
    from orders o
    join webhook_deliveries d on d.order_id = o.id and d.kind = 'delivery_request'
    where o.shop_id = $1 and o.external
    order by o.created_at desc, o.id desc limit $2`, [shopId, limit])
}
