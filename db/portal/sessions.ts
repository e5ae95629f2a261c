// Portal sessions in Postgres (docs/portal.md), so every instance sees the same
// ones: each request finds its live session and marks it seen in one statement;
// the operator's revocation ends a shop's sessions for every instance at once.
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm'
import {
  generateCsrfToken,
  generateSessionToken,
  hashPortalToken,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type PortalLocale
} from '../../domain/portal-token.js'
import type { Queryable } from '../core/client.js'
import { nowMs, NOW_MS } from '../core/time.js'
import { run } from '../core/sql.js'
import { shops } from '../tables.js'
import { portalSessions } from './tables.js'

export interface PortalSession {
  id: string
  shopId: string
  csrfToken: string
  readOnly: boolean
  locale: PortalLocale
  /** The seller's time zone (an IANA name): every time on the pages is shown in it. */
  tz: string
  createdAt: Date
  /** The last request's time: the session idles out an hour after it. */
  lastSeenAt: Date
  expiresAt: Date
  /** The shop's name, for every page's header. */
  shopName: string
}

export interface StartedSession {
  token: string
  session: PortalSession
}

const sessionColumns = {
  id: portalSessions.id,
  shopId: portalSessions.shopId,
  csrfToken: portalSessions.csrfToken,
  readOnly: portalSessions.readOnly,
  locale: portalSessions.locale,
  tz: portalSessions.tz,
  createdAt: portalSessions.createdAt,
  lastSeenAt: portalSessions.lastSeenAt,
  expiresAt: portalSessions.expiresAt
}

const idleSince = sql`now() - make_interval(secs => ${SESSION_IDLE_MS / 1000})`

export async function startSession (
  db: Queryable,
  shopId: string,
  options: { readOnly: boolean; locale: PortalLocale }
): Promise<StartedSession> {
  const token = generateSessionToken()
  const [session] = await db
    .insert(portalSessions)
    .values({
      shopId,
      tokenHash: hashPortalToken(token),
      csrfToken: generateCsrfToken(),
      readOnly: options.readOnly,
      locale: options.locale,
      expiresAt: sql`${nowMs} + make_interval(secs => ${SESSION_ABSOLUTE_MS / 1000})`
    })
    .returning(sessionColumns)
  const [shop] = await db.select({ name: shops.name }).from(shops).where(eq(shops.id, shopId))
  await db
    .delete(portalSessions)
    .where(and(eq(portalSessions.shopId, shopId), lt(portalSessions.expiresAt, sql`now() - interval '1 day'`)))
  return { token, session: { ...session, shopName: shop.name } as PortalSession }
}

/** The live session of this cookie token, marked seen now; undefined when none is (ended, expired, idle too long). */
export async function touchLiveSession (db: Queryable, token: string): Promise<PortalSession | undefined> {
  const [session] = await db
    .update(portalSessions)
    .set({ lastSeenAt: nowMs })
    .from(shops)
    .where(
      and(
        eq(shops.id, portalSessions.shopId),
        eq(portalSessions.tokenHash, hashPortalToken(token)),
        isNull(portalSessions.endedAt),
        gt(portalSessions.expiresAt, sql`now()`),
        gt(portalSessions.lastSeenAt, idleSince)
      )
    )
    .returning({ ...sessionColumns, shopName: shops.name })
  return session as PortalSession | undefined
}

export async function setSessionLocale (db: Queryable, sessionId: string, locale: PortalLocale): Promise<void> {
  await db.update(portalSessions).set({ locale }).where(eq(portalSessions.id, sessionId))
}

export async function setSessionTimeZone (db: Queryable, sessionId: string, tz: string): Promise<void> {
  await db.update(portalSessions).set({ tz }).where(eq(portalSessions.id, sessionId))
}

/** Ends one session (the seller signed out, or switched to another shop's link). */
export async function endSession (db: Queryable, sessionId: string): Promise<void> {
  await db.update(portalSessions).set({ endedAt: nowMs }).where(
    and(eq(portalSessions.id, sessionId), isNull(portalSessions.endedAt)))
}

/** Ends every session of the shop; the count is of those that were still live. */
export async function endShopSessions (db: Queryable, shopId: string): Promise<number> {
  const [row] = await run<{ revoked: number }>(
    db,
    `
    with ended as (
      update portal_sessions set ended_at = ${NOW_MS}
      where shop_id = $1 and ended_at is null
      returning expires_at, last_seen_at
    )
    select count(*) filter (
      where expires_at > now() and last_seen_at > now() - make_interval(secs => $2)
    )::int as revoked
    from ended`,
    [shopId, SESSION_IDLE_MS / 1000]
  )
  return row.revoked
}
