// The kinds of event a shop's feed carries (docs/events.md), shared by the
// events feed and the webhooks. `webhook.test` is not a feed event: it exists
// only as a test delivery to one endpoint (docs/webhooks.md).

export const eventTypes = [
  'order.paid',
  'order.taken',
  'order.delivered',
  'order.cancelled',
  'order.completed',
  'message.created',
  // Stock signals (docs/stock.md): for any product of the shop, automation or not.
  'stock.low',
  'stock.empty',
  // The seller's delivery endpoint could not supply an order (docs/delivery-endpoint.md).
  'order.delivery_failed',
  // Claims (docs/claims.md): a buyer reported delivered values; the order's values changed.
  'claim.opened',
  'claim.escalated',
  'claim.resolved',
  'order.updated',
  // A chat rule with callSeller answered a buyer (docs/chat-rules.md): a person may be wanted.
  'chat.seller_called'
] as const
export type EventType = typeof eventTypes[number]

/** The order transition (domain/order-transitions.ts) each order event records. */
export const orderEventTypes = {
  take: 'order.taken',
  deliver: 'order.delivered',
  cancel: 'order.cancelled',
  confirm: 'order.completed',
  autoDeliver: 'order.delivered',
  refund: 'order.cancelled'
} as const satisfies Record<string, EventType>

export const WEBHOOK_TEST_EVENT = 'webhook.test'

/** The `type` of a request to the shop's delivery endpoint (docs/delivery-endpoint.md); not a feed event. */
export const DELIVERY_REQUEST_TYPE = 'order.delivery_requested'
