// The seller portal's own records (docs/portal.md): the one-time links, the
// sessions and the activity log. A read or a write of one statement is passed on
// from db/portal/ as it is; the two of more statements open their transaction here.
import type { FastifyInstance } from 'fastify'
import { enterWithLink, voidUnusedLinks } from '../../db/portal/links.js'
import { endShopSessions, type StartedSession } from '../../db/portal/sessions.js'

type PortalApp = Pick<FastifyInstance, 'db'>

/** Uses a link up: the session it starts, or null when it is unknown, used or expired. */
export function enterPortal (app: PortalApp, token: string): Promise<StartedSession | null> {
  return app.db.transaction((tx) => enterWithLink(tx, token))
}

/** The operator's revocation: the shop's unopened links voided, its sessions ended; how many were live. */
export function revokePortalAccess (app: PortalApp, shopId: string): Promise<number> {
  return app.db.transaction(async (tx) => {
    await voidUnusedLinks(tx, shopId)
    return endShopSessions(tx, shopId)
  })
}

export { listActivity, recordActivity, type ActivityDetails } from '../../db/portal/activity.js'
export { createPortalLink, findOpenableLink } from '../../db/portal/links.js'
export {
  endSession, endShopSessions, setSessionLocale, setSessionTimeZone, touchLiveSession, type PortalSession
} from '../../db/portal/sessions.js'
export { attentionCounts, badgeCounts } from '../../db/portal/attention.js'
export {
  listAutomatedProducts, listOrderClaims, listOrderEvents, listPortalOrders, type PortalOrderFilter
} from '../../db/portal/orders.js'
export { waitingOrderCounts, type PortalStockItem } from '../../db/portal/stock.js'
export { findStockItems } from './stock-items.js'
