// Webhook deliveries as the API sees them: the test send, the log of an
// endpoint, and a manual retry. An event's deliveries are created with it by the
// trigger events_webhook_fan_out (migration 0007), in the event's transaction. The worker's side of the queue is in
// db/webhooks/queue.ts.
import { failureText, type AttemptFailure } from '../../domain/attempt-failures.js'
import { randomUUID } from 'node:crypto'
import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import { WEBHOOK_TEST_EVENT } from '../../domain/event-types.js'
import type { SendCursor, SendStatus } from '../../domain/webhook-sends.js'
import type { Queryable, Tx } from '../core/client.js'
import { webhookDeliveries, webhookEndpoints } from './tables.js'
import { nowMs } from '../core/time.js'

/** A send as the queries below return it. */
export interface WebhookSendRow {
  id: string
  endpointId: string
  webhookId: string
  eventType: string
  status: string
  attempts: number
  lastAttemptAt: Date | null
  nextAttemptAt: Date | null
  lastStatusCode: number | null
  lastError: string | null
  createdAt: Date
}

const sendColumns = {
  id: webhookDeliveries.id,
  // Never null for an event's delivery (only a delivery request outlives its endpoint).
  endpointId: sql<string>`${webhookDeliveries.endpointId}`,
  webhookId: webhookDeliveries.webhookId,
  eventType: webhookDeliveries.eventType,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastError: webhookDeliveries.lastError,
  createdAt: webhookDeliveries.createdAt
}

/** Ends the pending sends of an endpoint that was disabled; they stay in the log as failed, saying `why`. */
export async function failPendingSends (tx: Tx, endpointId: string, why: AttemptFailure): Promise<void> {
  await tx.update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, lastError: failureText(why), lastErrorDetail: why })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))
}

/** The endpoint, if it is the shop's, as a subquery condition on sends. */
const endpointOfShop = (shopId: string, endpointId: string) => and(
  eq(webhookDeliveries.endpointId, endpointId),
  sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${endpointId}
    and ${webhookEndpoints.shopId} = ${shopId} and ${webhookEndpoints.purpose} = 'events')`
)

/** A `webhook.test` send to this endpoint only (whatever its kinds), due now, in the caller's transaction. */
export async function createTestSend (tx: Tx, shopId: string, endpointId: string): Promise<WebhookSendRow | undefined> {
  // The key-share lock keeps the endpoint from being deleted under the insert.
  const [endpoint] = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.shopId, shopId),
      eq(webhookEndpoints.purpose, 'events')))
    .for('key share')
  if (!endpoint) return undefined
  const [send] = await tx.insert(webhookDeliveries).values({
    endpointId,
    webhookId: randomUUID(),
    eventType: WEBHOOK_TEST_EVENT,
    payload: { timestamp: new Date().toISOString(), data: { endpointId } },
    nextAttemptAt: nowMs
  }).returning(sendColumns)
  return send
}

export interface SendListOptions { status?: SendStatus, limit: number, after?: SendCursor }

/** One page of an endpoint's sends, newest first; `more` when older ones follow. */
export async function listSends (
  db: Queryable, shopId: string, endpointId: string, options: SendListOptions
): Promise<{ rows: WebhookSendRow[], more: boolean }> {
  const d = webhookDeliveries
  const { after } = options
  const rows = await db.select(sendColumns).from(d)
    .where(and(
      endpointOfShop(shopId, endpointId),
      options.status ? eq(d.status, options.status) : undefined,
      after
        ? or(lt(d.createdAt, after.createdAt),
          and(eq(d.createdAt, after.createdAt), lt(d.id, after.id)))
        : undefined
    ))
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(options.limit + 1)
  return { rows: rows.slice(0, options.limit), more: rows.length > options.limit }
}

/** What a retry changes: the send is pending and due now (retrySend says why the count goes on). */
const attemptedNow = { status: 'pending', nextAttemptAt: nowMs }

/**
 * Makes a send pending and due now, whatever its status. Its attempt count
 * goes on from where it was, so a retried `failed` send that fails again is
 * `failed` again, and a retried `pending` one keeps its place in the schedule.
 */
export async function retrySend (
  db: Queryable, shopId: string, endpointId: string, deliveryId: string
): Promise<WebhookSendRow | undefined> {
  const [send] = await db.update(webhookDeliveries)
    .set(attemptedNow)
    .where(and(eq(webhookDeliveries.id, deliveryId), endpointOfShop(shopId, endpointId)))
    .returning(sendColumns)
  return send
}

/**
 * Retries every `failed` send of the shop's endpoint, as retrySend does one, in
 * the caller's transaction (the endpoint's row is locked first); returns how
 * many. Undefined when the endpoint is not the shop's.
 */
export async function retryFailedSends (
  tx: Tx, shopId: string, endpointId: string
): Promise<number | undefined> {
  const [endpoint] = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.shopId, shopId),
      eq(webhookEndpoints.purpose, 'events')))
    .for('key share')
  if (!endpoint) return undefined
  const retried = await tx.update(webhookDeliveries)
    .set(attemptedNow)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'failed')))
    .returning({ id: webhookDeliveries.id })
  return retried.length
}
