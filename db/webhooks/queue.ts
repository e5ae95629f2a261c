// The worker's side of the webhook queue (webhook_deliveries): lease due
// sends under a lease, record each attempt's outcome, give leases back.
// A lease locks the rows it takes with FOR UPDATE SKIP LOCKED, so instances
// leasing at once never take the same row, and stamps the ones it takes with
// a lease token and a lease end; an outcome is written only while the token
// still matches. An instance that dies mid-attempt simply lets its lease run
// out, and the send is leased again.
import { randomUUID } from 'node:crypto'
import { and, eq, isNull, sql } from 'drizzle-orm'
import { failureText, type AttemptFailure } from '../../domain/attempt-failures.js'
import { DISABLE_AFTER_FAILING_MS, retryDelayMs } from '../../domain/webhook-retry.js'
import type { Db } from '../core/client.js'
import { disableFailingEndpoint } from './endpoints.js'
import { events, orders } from '../tables.js'
import { webhookDeliveries, webhookEndpoints } from './tables.js'
import { isoTime, nowMs } from '../core/time.js'

export interface LeasedSend {
  id: string
  leaseToken: string
  endpointId: string
  shopId: string
  url: string
  /** The current secret, and the previous one while it still signs. */
  secrets: string[]
  /** The endpoint has failed since its last success: it gets one attempt at a time. */
  endpointFailing: boolean
  webhookId: string
  eventType: string
  /** The body's `timestamp`: the event's createdAt (ISO). */
  timestamp: string
  data: unknown
  /** Attempts made, this one included. */
  attempts: number
  /**
   * `delivery_request`: a request to the shop's delivery endpoint for an order's goods
   * (db/delivery-endpoint/requests.ts).
   */
  kind: 'event' | 'delivery_request'
  /** The order of a delivery request; null for an event. */
  orderId: string | null
  /** That order's status when leased (a request is not sent for an order no longer paid). */
  orderStatus: string | null
}

export interface LeaseOptions {
  /** Deliveries to take at most. */
  limit: number
  /** Attempts at once per endpoint on this instance (1 for a failing endpoint). */
  endpointLimit: number
  /** Attempts this instance is making now, by endpoint id. */
  inFlight: ReadonlyMap<string, number>
  leaseMs: number
}

interface LeasedRow {
  id: string
  attempts: number
  endpointId: string
  shopId: string
  url: string
  secret: string
  previousSecret: string | null
  endpointFailing: boolean
  webhookId: string
  eventType: string
  payload: { timestamp: string, data: unknown } | null
  eventData: unknown
  eventCreatedAt: string | null
  kind: 'event' | 'delivery_request'
  orderId: string | null
  orderStatus: string | null
}

/** Rows of a raw query: postgres.js returns them as an array, PGlite in `rows`. */
function rowsOf<T> (result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]
}

/**
 * Takes up to `limit` due sends in one statement, fairly across endpoints:
 *
 *  1. `heads`: every endpoint with pending sends no instance holds a lease
 *     on, and its oldest due time, by a skip scan of webhook_deliveries_pending_idx
 *     (one index probe per endpoint, past the few rows leased now), so endpoints
 *     whose due rows other instances hold never take the lease's places;
 *  2. `chosen`: the endpoints that are due and have a place left here (their
 *     share is WEBHOOK_ENDPOINT_CONCURRENCY, 1 while failing, minus what this
 *     instance has in flight), oldest first;
 *  3. `picked`: from each, up to its free places of due, unleased rows, oldest
 *     first, locked with FOR UPDATE SKIP LOCKED (rows another instance is
 *     leasing right now are passed over);
 *  4. the update stamps them with the lease and counts the attempt.
 *
 * So a slow endpoint's backlog costs one probe, not a scan, and never takes the
 * places of other endpoints' sends.
 */
export async function leaseSends (db: Db, options: LeaseOptions): Promise<LeasedSend[]> {
  const d = webhookDeliveries
  const e = webhookEndpoints
  const inFlight = JSON.stringify(Object.fromEntries(options.inFlight))
  const leaseToken = randomUUID()
  const result = await db.execute(sql`
    with recursive heads (endpoint_id, due_at) as (
      (select ${d.endpointId}, ${d.nextAttemptAt} from ${d}
        where ${d.status} = 'pending' and (${d.leasedUntil} is null or ${d.leasedUntil} <= now())
        order by ${d.endpointId}, ${d.nextAttemptAt} limit 1)
      union all
      select following.endpoint_id, following.next_attempt_at from heads cross join lateral (
        select ${d.endpointId}, ${d.nextAttemptAt} from ${d}
        where ${d.status} = 'pending' and ${d.endpointId} > heads.endpoint_id
          and (${d.leasedUntil} is null or ${d.leasedUntil} <= now())
        order by ${d.endpointId}, ${d.nextAttemptAt} limit 1) following
    ),
    chosen as (
      select heads.endpoint_id, heads.due_at,
        (case when ${e.failingSince} is null then ${options.endpointLimit}::int else 1 end)
          - coalesce((${inFlight}::jsonb ->> heads.endpoint_id::text)::int, 0) as free
      from heads join ${e} on ${e.id} = heads.endpoint_id
      where heads.due_at <= now()
    ),
    picked as (
      select due.id, due.endpoint_id, due.event_id, due.webhook_id, due.event_type, due.payload, due.kind, due.order_id
      from (select * from chosen where free > 0 order by due_at limit ${options.limit}) chosen
      cross join lateral (
        select * from ${d}
        where ${d.endpointId} = chosen.endpoint_id and ${d.status} = 'pending' and ${d.nextAttemptAt} <= now()
          and (${d.leasedUntil} is null or ${d.leasedUntil} <= now())
        order by ${d.nextAttemptAt} limit chosen.free
        for update skip locked) due
      order by due.next_attempt_at limit ${options.limit}
    )
    update ${d} set
      lease_token = ${leaseToken},
      leased_until = now() + make_interval(secs => ${options.leaseMs / 1000}),
      attempts = ${d.attempts} + 1,
      last_attempt_at = ${nowMs}
    from picked
      join ${e} on ${e.id} = picked.endpoint_id
      left join ${events} on ${events.id} = picked.event_id
      left join ${orders} on ${orders.id} = picked.order_id
    where ${d.id} = picked.id
    returning ${d.id} as "id", ${d.attempts} as "attempts", picked.endpoint_id as "endpointId",
      ${e.shopId} as "shopId", ${e.url} as "url", ${e.secret} as "secret",
      case when ${e.previousSecretExpiresAt} > now() then ${e.previousSecret} end as "previousSecret",
      ${e.failingSince} is not null as "endpointFailing",
      picked.webhook_id as "webhookId", picked.event_type as "eventType", picked.payload as "payload",
      picked.kind as "kind", picked.order_id as "orderId", ${orders.status} as "orderStatus",
      ${events.data} as "eventData",
      ${sql.raw(isoTime('events.created_at'))} as "eventCreatedAt"`)
  return rowsOf<LeasedRow>(result).map((row) => ({
    id: row.id,
    leaseToken,
    endpointId: row.endpointId,
    shopId: row.shopId,
    url: row.url,
    secrets: row.previousSecret === null ? [row.secret] : [row.secret, row.previousSecret],
    endpointFailing: row.endpointFailing,
    webhookId: row.webhookId,
    eventType: row.eventType,
    timestamp: row.payload?.timestamp ?? row.eventCreatedAt!,
    data: row.payload?.data ?? row.eventData,
    attempts: row.attempts,
    kind: row.kind,
    orderId: row.orderId,
    orderStatus: row.orderStatus
  }))
}

export interface AttemptOutcome {
  ok: boolean
  /** The HTTP status answered; null when there was no answer. */
  statusCode: number | null
  /** Why the attempt failed, in the API's words; null on success. */
  error: string | null
  /** The same as a kind and its numbers, for the portal's words (absent: not known). */
  failure?: AttemptFailure | null
  /** The first 1 KB of the answer's body, when an answer came. */
  answer?: string | null
  /** How long the attempt took. */
  durationMs?: number
}

const leaseHeld = (item: LeasedSend) =>
  and(eq(webhookDeliveries.id, item.id), eq(webhookDeliveries.leaseToken, item.leaseToken))

const leaseEnd = { leaseToken: null, leasedUntil: null }

/**
 * The attempt appended to the send's log (oldest first): when it was made, the
 * status answered, why it failed, how long it took and the answer's first 1 KB,
 * for the seller's attempt view (routes/portal/webhook-attempts.ts) and health.
 */
const loggedAttempt = (outcome: AttemptOutcome) => sql`${webhookDeliveries.attemptLog} || jsonb_build_array(
  jsonb_build_object('at', ${sql.raw(isoTime('last_attempt_at'))}, 'statusCode', ${outcome.statusCode}::int,
    'error', ${outcome.error}::text, 'durationMs', ${outcome.durationMs ?? null}::int,
    'answer', ${outcome.answer ?? null}::text, 'failure', ${failureParam(outcome)}::text::jsonb))`

const failureParam = (outcome: AttemptOutcome) => (outcome.failure ? JSON.stringify(outcome.failure) : null)

/**
 * Records the outcome of an attempt. A success ends the send and the
 * endpoint's failure streak. A failure schedules the next attempt (or ends the
 * send as `failed` when the schedule is used up or the endpoint is disabled),
 * starts the endpoint's failure streak, and disables the endpoint once the streak
 * has lasted DISABLE_AFTER_FAILING_MS. Locks are taken shop, endpoint, send:
 * the order of the endpoint changes of the API, so the two cannot deadlock.
 */
export async function recordAttempt (
  db: Db, item: LeasedSend, outcome: AttemptOutcome, retrySchedule: number[]
): Promise<void> {
  const d = webhookDeliveries
  const e = webhookEndpoints
  if (outcome.ok) {
    const succeed = (q: Pick<Db, 'update'>) => q.update(d)
      .set({
        status: 'succeeded',
        nextAttemptAt: null,
        lastStatusCode: outcome.statusCode,
        lastError: null,
        lastErrorDetail: null,
        attemptLog: loggedAttempt(outcome),
        ...leaseEnd
      })
      .where(leaseHeld(item))
    if (!item.endpointFailing) {
      await succeed(db)
      return
    }
    await db.transaction(async (tx) => {
      await tx.update(e).set({ failingSince: null }).where(eq(e.id, item.endpointId))
      await succeed(tx)
    })
    return
  }
  await db.transaction(async (tx) => {
    const [endpoint] = await tx.select({
      enabled: e.enabled,
      failingFor: sql<number | null>`(extract(epoch from now() - ${e.failingSince}) * 1000)::float8`
    }).from(e).where(eq(e.id, item.endpointId))
    // Deleted meanwhile: its sends went with it.
    if (!endpoint) return
    let enabled = endpoint.enabled
    if (endpoint.failingFor === null) {
      await tx.update(e).set({ failingSince: nowMs }).where(and(eq(e.id, item.endpointId), isNull(e.failingSince)))
    } else if (enabled && endpoint.failingFor >= DISABLE_AFTER_FAILING_MS) {
      const since = new Date(Date.now() - endpoint.failingFor).toISOString()
      await disableFailingEndpoint(tx, item.shopId, item.endpointId,
        { kind: 'failing', since, last: outcome.error, lastFailure: outcome.failure ?? null })
      enabled = false
    }
    const delayMs = enabled ? retryDelayMs(item.attempts, retrySchedule) : null
    await tx.update(d)
      .set({
        status: delayMs === null ? 'failed' : 'pending',
        nextAttemptAt: delayMs === null ? null : sql`${nowMs} + make_interval(secs => ${delayMs / 1000})`,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        lastErrorDetail: outcome.failure ?? null,
        attemptLog: loggedAttempt(outcome),
        ...leaseEnd
      })
      .where(leaseHeld(item))
  })
}

const shutdown: AttemptFailure = { kind: 'shutdown' }

/**
 * Gives back the leases of attempts cut short by a shutdown: the sends are
 * due at once, for another instance (or the next start) to attempt again.
 */
export async function releaseSends (db: Db, items: LeasedSend[]): Promise<void> {
  for (const item of items) {
    await db.update(webhookDeliveries)
      .set({ lastError: failureText(shutdown), lastErrorDetail: shutdown, ...leaseEnd })
      .where(leaseHeld(item))
  }
}
