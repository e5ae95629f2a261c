// The seller portal's own records (docs/portal.md): the one-time links, the
// sessions and the activity log, one statement or one transaction of
// db/portal/ each.
export { listActivity, recordActivity, type ActivityDetails } from '../../db/portal/activity.js'
export { createPortalLink, enterWithLink, findOpenableLink, voidUnusedLinks } from '../../db/portal/links.js'
export {
  endSession, endShopSessions, setSessionLocale, touchLiveSession, type PortalSession
} from '../../db/portal/sessions.js'
export { attentionCounts, badgeCounts } from '../../db/portal/attention.js'
export {
  listAutomatedProducts, listOrderClaims, listOrderEvents, listPortalOrders, type PortalOrderFilter
} from '../../db/portal/orders.js'
export { waitingOrderCounts, type PortalStockItem } from '../../db/portal/stock.js'
export { findStockItems } from './stock-items.js'
