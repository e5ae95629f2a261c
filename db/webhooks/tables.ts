// The webhook tables (docs/webhooks.md): endpoints and the sends to them (events and delivery requests).
import type { AttemptFailure } from '../../domain/attempt-failures.js'
import type { DisabledReason } from '../../domain/disabled-reasons.js'
import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { events, id, orders, shops, stamp, ts } from '../tables.js'

/**
 * A shop's webhook endpoints (docs/webhooks.md). `secret` signs every delivery;
 * after a rotation `previousSecret` also signs until `previousSecretExpiresAt`.
 * Neither ever leaves the service except in the create / rotate responses.
 * `failingSince` is the first failed attempt since the last success: five days of
 * that disables the endpoint.
 */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  url: text('url').notNull(),
  /** Empty: every kind. */
  eventTypes: text('event_types').array().notNull().default(sql`'{}'::text[]`),
  description: text('description').notNull().default(''),
  enabled: boolean('enabled').notNull().default(true),
  disabledReason: text('disabled_reason'),
  /** Why it is disabled as a kind and its numbers (domain/disabled-reasons.ts); null before 0021. */
  disabledDetail: jsonb('disabled_detail').$type<DisabledReason>(),
  secret: text('secret').notNull(),
  previousSecret: text('previous_secret'),
  previousSecretExpiresAt: ts('previous_secret_expires_at'),
  failingSince: ts('failing_since'),
  /**
   * `events`: a webhook endpoint (the events fan out to it); `delivery`: the shop's
   * one delivery endpoint (docs/delivery-endpoint.md), sent delivery requests only.
   */
  purpose: text('purpose').$type<'events' | 'delivery'>().notNull().default('events'),
  createdAt: stamp('created_at'),
  updatedAt: stamp('updated_at')
}, (t) => [
  index('webhook_endpoints_shop_idx').on(t.shopId, t.createdAt),
  uniqueIndex('webhook_endpoints_delivery_idx').on(t.shopId).where(sql`purpose = 'delivery'`)
])

/**
 * The delivery queue and log: one row per (event, endpoint), written in the
 * event's transaction, or by the test call. A worker leases a due row by setting
 * `leaseToken` / `leasedUntil`; a lease that runs out (its instance died) makes the
 * row leasable again. `webhookId` is the `webhook-id` header: the event's id, or
 * a fresh id for a `webhook.test` delivery, whose body lives in `payload`.
 */
export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: id(),
  /**
   * Null only for a delivery request whose endpoint was deleted (it stays in the
   * order's log); an endpoint's event deliveries are deleted with it (db/webhooks/endpoints.ts).
   */
  endpointId: uuid('endpoint_id').references(() => webhookEndpoints.id, { onDelete: 'set null' }),
  /** Null for a test delivery. Removing an event (retention) removes its deliveries. */
  eventId: uuid('event_id').references(() => events.id, { onDelete: 'cascade' }),
  webhookId: uuid('webhook_id').notNull(),
  eventType: text('event_type').notNull(),
  /** The test delivery's `{timestamp, data}`; event deliveries read their event. */
  payload: jsonb('payload').$type<{ timestamp: string, data: unknown }>(),
  status: text('status').notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  /** When the next attempt is due; null unless pending. */
  nextAttemptAt: ts('next_attempt_at'),
  lastAttemptAt: ts('last_attempt_at'),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  /** Why the last attempt failed as a kind and its numbers (domain/attempt-failures.ts); null before 0021. */
  lastErrorDetail: jsonb('last_error_detail').$type<AttemptFailure>(),
  leaseToken: uuid('lease_token'),
  leasedUntil: ts('leased_until'),
  /** `event` (a webhook) or `delivery_request` (docs/delivery-endpoint.md: the order's request for its goods). */
  kind: text('kind').$type<'event' | 'delivery_request'>().notNull().default('event'),
  /** The order a delivery request is for. */
  orderId: uuid('order_id').references(() => orders.id),
  /**
   * The attempts, oldest first: `{at, statusCode, error, durationMs}`, and for an
   * event's send `answer`, the first 1 KB of the receiver's answer (null: none came).
   */
  attemptLog: jsonb('attempt_log').$type<Array<{
    at: string,
    statusCode: number | null,
    error: string | null,
    durationMs: number | null,
    answer?: string | null,
    failure?: AttemptFailure | null
  }>>().notNull().default(sql`'[]'::jsonb`),
  updatedAt: ts('updated_at'),
  createdAt: stamp('created_at')
}, (t) => [
  // One delivery request per order.
  uniqueIndex('webhook_deliveries_order_idx').on(t.orderId).where(sql`kind = 'delivery_request'`),
  // The lease's skip scan: each endpoint's pending deliveries, oldest due first.
  index('webhook_deliveries_pending_idx').on(t.endpointId, t.nextAttemptAt).where(sql`status = 'pending'`),
  index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt.desc(), t.id.desc()),
  index('webhook_deliveries_event_idx').on(t.eventId)
])
