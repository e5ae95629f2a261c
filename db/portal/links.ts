// The operator's portal links (docs/portal.md): made with a token shown once,
// and opened once: the opening that marks the link used starts the session, in
// the same transaction, so two openings at once cannot both enter.
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm'
import { generateLinkToken, hashPortalToken, type PortalLocale } from '../../domain/portal-token.js'
import type { Db, Queryable, Tx } from '../core/client.js'
import { nowMs } from '../core/time.js'
import { shops } from '../tables.js'
import { portalLinks } from './tables.js'
import { startSession, type StartedSession } from './sessions.js'

export interface LinkOptions {
  ttlSeconds: number
  readOnly: boolean
  locale: PortalLocale
}

/** A new link of the shop, its token shown only now; the shop's links long expired go. */
export async function createPortalLink (
  db: Db,
  shopId: string,
  options: LinkOptions
): Promise<{ token: string; expiresAt: Date }> {
  const token = generateLinkToken()
  const [link] = await db
    .insert(portalLinks)
    .values({
      shopId,
      tokenHash: hashPortalToken(token),
      readOnly: options.readOnly,
      locale: options.locale,
      expiresAt: sql`${nowMs} + make_interval(secs => ${options.ttlSeconds})`
    })
    .returning({ expiresAt: portalLinks.expiresAt })
  await db
    .delete(portalLinks)
    .where(and(eq(portalLinks.shopId, shopId), lt(portalLinks.expiresAt, sql`now() - interval '1 day'`)))
  return { token, expiresAt: link.expiresAt }
}

const openable = (token: string) =>
  and(
    eq(portalLinks.tokenHash, hashPortalToken(token)),
    isNull(portalLinks.usedAt),
    gt(portalLinks.expiresAt, sql`now()`)
  )

/** The shop a link would open, without using it up (HEAD, and the question before switching shops). */
export async function findOpenableLink (db: Db, token: string): Promise<{ shopId: string; shopName: string } | null> {
  const [link] = await db
    .select({ shopId: portalLinks.shopId, shopName: shops.name })
    .from(portalLinks)
    .innerJoin(shops, eq(shops.id, portalLinks.shopId))
    .where(openable(token))
  return link ?? null
}

/** Voids the shop's links not yet opened (the operator's revocation): each then answers as a used one. */
export async function voidUnusedLinks (db: Queryable, shopId: string): Promise<number> {
  const voided = await db
    .update(portalLinks)
    .set({ usedAt: nowMs })
    .where(and(eq(portalLinks.shopId, shopId), isNull(portalLinks.usedAt), gt(portalLinks.expiresAt, sql`now()`)))
    .returning({ id: portalLinks.id })
  return voided.length
}

/** Opens a link, in the caller's transaction: the session it starts, or null when it is unknown, used or expired. */
export async function enterWithLink (tx: Tx, token: string): Promise<StartedSession | null> {
  const [link] = await tx
    .update(portalLinks)
    .set({ usedAt: nowMs })
    .where(openable(token))
    .returning({ shopId: portalLinks.shopId, readOnly: portalLinks.readOnly, locale: portalLinks.locale })
  if (!link) return null
  return startSession(tx, link.shopId, { readOnly: link.readOnly, locale: link.locale as PortalLocale })
}
