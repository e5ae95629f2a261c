// The Activity page's record (docs/portal.md): each change a portal session made,
// with names and counts only (never a secret or a stock value); a shop keeps its
// newest ACTIVITY_KEPT.
import { desc, eq, sql } from 'drizzle-orm'
import type { Queryable } from '../core/client.js'
import { portalActivity } from './tables.js'

export const ACTIVITY_KEPT = 200

export type ActivityDetails = Record<string, string | number | boolean | null>

export interface ActivityEntry {
  id: string
  sessionId: string
  action: string
  details: ActivityDetails
  createdAt: Date
}

export async function recordActivity (
  db: Queryable,
  entry: { shopId: string; sessionId: string; action: string; details: ActivityDetails }
): Promise<void> {
  await db.insert(portalActivity).values(entry)
  await db.execute(sql`
    delete from portal_activity where id in (
      select id from portal_activity where shop_id = ${entry.shopId}
      order by created_at desc, id desc offset ${ACTIVITY_KEPT}
    )`)
}

export function listActivity (db: Queryable, shopId: string): Promise<ActivityEntry[]> {
  return db
    .select({
      id: portalActivity.id,
      sessionId: portalActivity.sessionId,
      action: portalActivity.action,
      details: portalActivity.details,
      createdAt: portalActivity.createdAt
    })
    .from(portalActivity)
    .where(eq(portalActivity.shopId, shopId))
    .orderBy(desc(portalActivity.createdAt), desc(portalActivity.id))
    .limit(ACTIVITY_KEPT)
}
