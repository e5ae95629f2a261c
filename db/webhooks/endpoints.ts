// A shop's webhook endpoints: create (the secret is returned once), list, read,
// change, delete, rotate the secret, disable. Every change that decides which
// events an endpoint gets (create, url / eventTypes / enabled, delete) first
// takes the shop row's lock, which every event's append also takes
// (db/events/statements.ts): each event then sees the endpoints either wholly
// before or wholly after the change, so an event committed after a 201 / 200 is
// delivered by its rules and none before it.
import { disabledReasonText, type DisabledReason } from '../../domain/disabled-reasons.js'
import { and, asc, count, eq, sql } from 'drizzle-orm'
import { generateWebhookSecret } from '../../domain/webhook-signing.js'
import type { Queryable, Tx } from '../core/client.js'
import { failPendingSends } from './sends.js'
import { shops } from '../tables.js'
import { webhookDeliveries, webhookEndpoints } from './tables.js'
import { nowMs } from '../core/time.js'

export const MAX_ENDPOINTS_PER_SHOP = 10
/** How long the secret before a rotation still signs. */
const PREVIOUS_SECRET_HOURS = 24

/** An endpoint as the queries below return it. */
export interface EndpointRow {
  id: string
  url: string
  eventTypes: string[]
  description: string
  enabled: boolean
  disabledReason: string | null
  createdAt: Date
  updatedAt: Date
}

const endpointColumns = {
  id: webhookEndpoints.id,
  url: webhookEndpoints.url,
  eventTypes: webhookEndpoints.eventTypes,
  description: webhookEndpoints.description,
  enabled: webhookEndpoints.enabled,
  disabledReason: webhookEndpoints.disabledReason,
  createdAt: webhookEndpoints.createdAt,
  updatedAt: webhookEndpoints.updatedAt
}

/** Webhook endpoints only: the shop's delivery endpoint (db/delivery-endpoint/endpoint.ts) is not one. */
const isWebhookEndpoint = eq(webhookEndpoints.purpose, 'events')

const ownedBy = (shopId: string, endpointId: string) =>
  and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.shopId, shopId), isWebhookEndpoint)

async function lockShop (tx: Tx, shopId: string): Promise<void> {
  await tx.select({ id: shops.id }).from(shops).where(eq(shops.id, shopId)).for('no key update')
}

export interface EndpointInput { url: string, eventTypes: string[], description: string }

/** Creates an endpoint, in the caller's transaction; null when the shop already has MAX_ENDPOINTS_PER_SHOP. */
export async function createEndpoint (
  tx: Tx, shopId: string, input: EndpointInput
): Promise<{ endpoint: EndpointRow, secret: string } | null> {
  await lockShop(tx, shopId)
  const [{ endpoints }] = await tx.select({ endpoints: count() }).from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.shopId, shopId), isWebhookEndpoint))
  if (endpoints >= MAX_ENDPOINTS_PER_SHOP) return null
  const secret = generateWebhookSecret()
  const [endpoint] = await tx.insert(webhookEndpoints).values({ shopId, ...input, secret }).returning(endpointColumns)
  return { endpoint, secret }
}

export function listEndpoints (db: Queryable, shopId: string): Promise<EndpointRow[]> {
  return db.select(endpointColumns).from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.shopId, shopId), isWebhookEndpoint))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
}

export async function findEndpoint (
  db: Queryable, shopId: string, endpointId: string
): Promise<EndpointRow | undefined> {
  const [endpoint] = await db.select(endpointColumns).from(webhookEndpoints).where(ownedBy(shopId, endpointId))
  return endpoint
}

export interface EndpointChanges { url?: string, eventTypes?: string[], description?: string, enabled?: boolean }

const BY_REQUEST: DisabledReason = { kind: 'byRequest' }

/**
 * Applies `changes`, in the caller's transaction. Disabling fails the pending deliveries (none is sent
 * automatically while disabled); enabling clears the reason and the failure
 * streak, and resumes with the events from then on.
 */
export async function updateEndpoint (
  tx: Tx, shopId: string, endpointId: string, changes: EndpointChanges
): Promise<EndpointRow | undefined> {
  await lockShop(tx, shopId)
  const [endpoint] = await tx.update(webhookEndpoints)
    .set({
      ...changes,
      ...(changes.enabled === true ? { disabledReason: null, disabledDetail: null, failingSince: null } : {}),
      // An endpoint disabled already keeps the reason it has (e.g. its failures).
      ...(changes.enabled === false
        ? {
            disabledReason: sql`coalesce(${webhookEndpoints.disabledReason}, ${disabledReasonText(BY_REQUEST)})`,
            disabledDetail: sql`case when ${webhookEndpoints.disabledReason} is null
              then ${JSON.stringify(BY_REQUEST)}::jsonb else ${webhookEndpoints.disabledDetail} end`
          }
        : {}),
      updatedAt: nowMs
    })
    .where(ownedBy(shopId, endpointId))
    .returning(endpointColumns)
  if (endpoint && changes.enabled === false) {
    await failPendingSends(tx, endpointId, { kind: 'endpointDisabled' })
  }
  return endpoint
}

/** Deletes an endpoint with its attempts' rows, in the caller's transaction; returns it as it was. */
export async function deleteEndpoint (tx: Tx, shopId: string, endpointId: string): Promise<EndpointRow | undefined> {
  await lockShop(tx, shopId)
  // Explicitly: the foreign key keeps delivery requests (set null), not deliveries.
  await tx.delete(webhookDeliveries).where(and(
    eq(webhookDeliveries.endpointId, endpointId),
    sql`exists (select 1 from ${webhookEndpoints} where ${ownedBy(shopId, endpointId)})`
  ))
  const [endpoint] = await tx.delete(webhookEndpoints).where(ownedBy(shopId, endpointId)).returning(endpointColumns)
  return endpoint
}

/**
 * A new secret; the current one keeps signing next to it for 24 hours. Only the
 * current and the one before it are kept: a second rotation drops the older.
 */
export async function rotateEndpointSecret (
  db: Queryable, shopId: string, endpointId: string
): Promise<{ endpoint: EndpointRow, secret: string } | undefined> {
  const secret = generateWebhookSecret()
  const [endpoint] = await db.update(webhookEndpoints).set(rotatedSecret(secret)).where(ownedBy(shopId,
    endpointId)).returning(endpointColumns)
  return endpoint && { endpoint, secret }
}

/**
 * The columns a rotation to `secret` sets, for any endpoint (the delivery endpoint too:
 * db/delivery-endpoint/endpoint.ts).
 */
export function rotatedSecret (secret: string) {
  return {
    previousSecret: sql`${webhookEndpoints.secret}`,
    previousSecretExpiresAt: sql`${nowMs} + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
    secret,
    updatedAt: nowMs
  }
}

/**
 * Disables an endpoint for its failures (the worker, in its own transaction):
 * the shop row first, as every change of an endpoint's rules does.
 */
export async function disableFailingEndpoint (
  tx: Tx, shopId: string, endpointId: string, reason: DisabledReason
): Promise<void> {
  await lockShop(tx, shopId)
  const [disabled] = await tx.update(webhookEndpoints)
    .set({ enabled: false, disabledReason: disabledReasonText(reason), disabledDetail: reason, updatedAt: nowMs })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id })
  if (disabled) await failPendingSends(tx, endpointId, { kind: 'endpointDisabledFailing' })
}
