// The worker's side of the webhook queue (webhook_deliveries): claim due
// deliveries under a lease, record each attempt's outcome, give leases back.
// A claim locks candidate rows with FOR UPDATE SKIP LOCKED, so instances
// claiming at once never take the same row, and stamps the ones it takes with
// a lease token and a lease end; an outcome is written only while the token
// still matches. An instance that dies mid-attempt simply lets its lease run
// out, and the delivery is claimed again.
import { randomUUID } from 'node:crypto'
import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm'
import { DISABLE_AFTER_FAILING_MS, retryDelayMs } from '../domain/webhook-retry.js'
import type { Db } from './client.js'
import { disableFailingEndpoint } from './webhook-endpoints.js'
import { events, webhookDeliveries, webhookEndpoints } from './schema.js'

export interface ClaimedDelivery {
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
}

export interface ClaimOptions {
  /** Deliveries to take at most. */
  limit: number
  /** Attempts at once per endpoint on this instance (1 for a failing endpoint). */
  endpointLimit: number
  /** Attempts this instance is making now, by endpoint id. */
  inFlight: ReadonlyMap<string, number>
  leaseMs: number
}

const nowMs = sql`date_trunc('milliseconds', now())`

/**
 * Takes up to `limit` due deliveries, oldest due first, leaving out endpoints that
 * already have their share of attempts in flight here: a slow endpoint's backlog
 * cannot take the places of other endpoints' deliveries.
 */
export async function claimDeliveries (db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const d = webhookDeliveries
  const e = webhookEndpoints
  const inFlight = JSON.stringify(Object.fromEntries(options.inFlight))
  const endpointCap = sql`case when ${e.failingSince} is null then ${options.endpointLimit}::int else 1 end`
  return db.transaction(async (tx) => {
    const candidates = await tx.select({
      id: d.id,
      endpointId: d.endpointId,
      webhookId: d.webhookId,
      eventType: d.eventType,
      payload: d.payload,
      eventData: events.data,
      eventCreatedAt: events.createdAt,
      shopId: e.shopId,
      url: e.url,
      secret: e.secret,
      previousSecret: sql<string | null>`case when ${e.previousSecretExpiresAt} > now() then ${e.previousSecret} end`,
      endpointFailing: sql<boolean>`${e.failingSince} is not null`
    })
      .from(d)
      .innerJoin(e, eq(e.id, d.endpointId))
      .leftJoin(events, eq(events.id, d.eventId))
      .where(and(
        eq(d.status, 'pending'),
        lte(d.nextAttemptAt, sql`now()`),
        or(isNull(d.leasedUntil), lte(d.leasedUntil, sql`now()`)),
        sql`coalesce((${inFlight}::jsonb ->> ${d.endpointId}::text)::int, 0) < ${endpointCap}`
      ))
      .orderBy(asc(d.nextAttemptAt))
      // Room for rows beyond an endpoint's share, which are left for the next claim.
      .limit(options.limit * 2)
      .for('update', { of: d, skipLocked: true })

    const taken = new Map(options.inFlight)
    const picked = candidates.filter((c) => {
      const count = taken.get(c.endpointId) ?? 0
      if (count >= (c.endpointFailing ? 1 : options.endpointLimit)) return false
      taken.set(c.endpointId, count + 1)
      return true
    }).slice(0, options.limit)
    if (picked.length === 0) return []

    const leaseToken = randomUUID()
    const leased = await tx.update(d)
      .set({
        leaseToken,
        leasedUntil: sql`now() + make_interval(secs => ${options.leaseMs / 1000})`,
        attempts: sql`${d.attempts} + 1`,
        lastAttemptAt: nowMs
      })
      .where(inArray(d.id, picked.map((c) => c.id)))
      .returning({ id: d.id, attempts: d.attempts })
    const attempts = new Map(leased.map((row) => [row.id, row.attempts]))
    return picked.map((c) => ({
      id: c.id,
      leaseToken,
      endpointId: c.endpointId,
      shopId: c.shopId,
      url: c.url,
      secrets: c.previousSecret === null ? [c.secret] : [c.secret, c.previousSecret],
      endpointFailing: c.endpointFailing,
      webhookId: c.webhookId,
      eventType: c.eventType,
      timestamp: c.payload?.timestamp ?? c.eventCreatedAt!.toISOString(),
      data: c.payload?.data ?? c.eventData,
      attempts: attempts.get(c.id)!
    }))
  })
}

export interface AttemptOutcome {
  ok: boolean
  /** The HTTP status answered; null when there was no answer. */
  statusCode: number | null
  /** Why the attempt failed; null on success. */
  error: string | null
}

const leaseHeld = (delivery: ClaimedDelivery) =>
  and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.leaseToken, delivery.leaseToken))

const leaseEnd = { leaseToken: null, leasedUntil: null }

/**
 * Records the outcome of an attempt. A success ends the delivery and the
 * endpoint's failure streak. A failure schedules the next attempt (or ends the
 * delivery as `failed` when the schedule is used up or the endpoint is disabled),
 * starts the endpoint's failure streak, and disables the endpoint once the streak
 * has lasted DISABLE_AFTER_FAILING_MS. Locks are taken shop, endpoint, delivery:
 * the order of the endpoint changes of the API, so the two cannot deadlock.
 */
export async function recordAttempt (db: Db, delivery: ClaimedDelivery, outcome: AttemptOutcome, retrySchedule: number[]): Promise<void> {
  const d = webhookDeliveries
  const e = webhookEndpoints
  if (outcome.ok) {
    const succeed = (q: Pick<Db, 'update'>) => q.update(d)
      .set({ status: 'succeeded', nextAttemptAt: null, lastStatusCode: outcome.statusCode, lastError: null, ...leaseEnd })
      .where(leaseHeld(delivery))
    if (!delivery.endpointFailing) {
      await succeed(db)
      return
    }
    await db.transaction(async (tx) => {
      await tx.update(e).set({ failingSince: null }).where(eq(e.id, delivery.endpointId))
      await succeed(tx)
    })
    return
  }
  await db.transaction(async (tx) => {
    const [endpoint] = await tx.select({
      enabled: e.enabled,
      failingFor: sql<number | null>`(extract(epoch from now() - ${e.failingSince}) * 1000)::float8`
    }).from(e).where(eq(e.id, delivery.endpointId))
    // Deleted meanwhile: its deliveries went with it.
    if (!endpoint) return
    let enabled = endpoint.enabled
    if (endpoint.failingFor === null) {
      await tx.update(e).set({ failingSince: nowMs }).where(and(eq(e.id, delivery.endpointId), isNull(e.failingSince)))
    } else if (enabled && endpoint.failingFor >= DISABLE_AFTER_FAILING_MS) {
      const since = new Date(Date.now() - endpoint.failingFor).toISOString()
      await disableFailingEndpoint(tx, delivery.shopId, delivery.endpointId, `Every delivery attempt since ${since} failed (last: ${outcome.error}). Fix the endpoint, then enable it again.`)
      enabled = false
    }
    const delayMs = enabled ? retryDelayMs(delivery.attempts, retrySchedule) : null
    await tx.update(d)
      .set({
        status: delayMs === null ? 'failed' : 'pending',
        nextAttemptAt: delayMs === null ? null : sql`${nowMs} + make_interval(secs => ${delayMs / 1000})`,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        ...leaseEnd
      })
      .where(leaseHeld(delivery))
  })
}

/**
 * Gives back the leases of attempts cut short by a shutdown: the deliveries are
 * due at once, for another instance (or the next start) to attempt again.
 */
export async function releaseDeliveries (db: Db, deliveries: ClaimedDelivery[]): Promise<void> {
  for (const delivery of deliveries) {
    await db.update(webhookDeliveries)
      .set({ lastError: 'The attempt was cut short by a shutdown; it is made again.', ...leaseEnd })
      .where(leaseHeld(delivery))
  }
}
