// Webhook deliveries as the API sees them: the test delivery, the log of an
// endpoint, and a manual retry. An event's deliveries are created with it by the
// trigger events_webhook_fan_out (migration 0007), in the event's transaction. The worker's side of the queue is in
// db/webhook-queue.ts.
import { randomUUID } from 'node:crypto'
import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import { WEBHOOK_TEST_EVENT } from '../domain/event-types.js'
import type { DeliveryCursor, DeliveryStatus } from '../domain/webhook-deliveries.js'
import type { Db, Queryable, Tx } from './client.js'
import { webhookDeliveries, webhookEndpoints } from './schema.js'
import { nowMs } from './sql-time.js'

/** A delivery as the queries below return it. */
export interface DeliveryRow {
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

const deliveryColumns = {
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

/** Ends the pending deliveries of an endpoint that was disabled; they stay in the log as failed. */
export async function failPendingDeliveries (tx: Tx, endpointId: string, reason: string): Promise<void> {
  await tx.update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, lastError: reason })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))
}

/** The endpoint, if it is the shop's, as a subquery condition on deliveries. */
const endpointOfShop = (shopId: string, endpointId: string) => and(
  eq(webhookDeliveries.endpointId, endpointId),
  sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${endpointId} and ${webhookEndpoints.shopId} = ${shopId} and ${webhookEndpoints.purpose} = 'events')`
)

/** A `webhook.test` delivery to this endpoint only (whatever its kinds), due now. */
export async function createTestDelivery (db: Db, shopId: string, endpointId: string): Promise<DeliveryRow | undefined> {
  return db.transaction(async (tx) => {
    // The key-share lock keeps the endpoint from being deleted under the insert.
    const [endpoint] = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.shopId, shopId), eq(webhookEndpoints.purpose, 'events')))
      .for('key share')
    if (!endpoint) return undefined
    const [delivery] = await tx.insert(webhookDeliveries).values({
      endpointId,
      webhookId: randomUUID(),
      eventType: WEBHOOK_TEST_EVENT,
      payload: { timestamp: new Date().toISOString(), data: { endpointId } },
      nextAttemptAt: nowMs
    }).returning(deliveryColumns)
    return delivery
  })
}

export interface DeliveryListOptions { status?: DeliveryStatus, limit: number, after?: DeliveryCursor }

/** One page of an endpoint's deliveries, newest first; `more` when older ones follow. */
export async function listDeliveries (db: Queryable, shopId: string, endpointId: string, options: DeliveryListOptions): Promise<{ rows: DeliveryRow[], more: boolean }> {
  const d = webhookDeliveries
  const { after } = options
  const rows = await db.select(deliveryColumns).from(d)
    .where(and(
      endpointOfShop(shopId, endpointId),
      options.status ? eq(d.status, options.status) : undefined,
      after ? or(lt(d.createdAt, after.createdAt), and(eq(d.createdAt, after.createdAt), lt(d.id, after.id))) : undefined
    ))
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(options.limit + 1)
  return { rows: rows.slice(0, options.limit), more: rows.length > options.limit }
}

/**
 * Makes a delivery pending and due now, whatever its status. Its attempt count
 * goes on from where it was, so a retried `failed` delivery that fails again is
 * `failed` again, and a retried `pending` one keeps its place in the schedule.
 */
export async function retryDelivery (db: Queryable, shopId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [delivery] = await db.update(webhookDeliveries)
    .set({ status: 'pending', nextAttemptAt: nowMs })
    .where(and(eq(webhookDeliveries.id, deliveryId), endpointOfShop(shopId, endpointId)))
    .returning(deliveryColumns)
  return delivery
}
