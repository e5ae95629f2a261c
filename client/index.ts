// The typed client of the Shop Seller Automation API: openapi-fetch over the
// types openapi-typescript generates from the published document
// (client/schema.d.ts, `npm run client:generate`), with the key header,
// automatic Idempotency-Keys and retries (client/retrying-fetch.ts), the
// envelope unwrapped (`unwrap`), the events feed as an async iterator
// (client/events.ts), webhook verification (client/webhooks.ts) and the
// delivery endpoint's handler (client/delivery-endpoint.ts).
//
//   const seller = createSellerClient({ baseUrl, apiKey })
//   const { orders } = await unwrap(seller.GET('/v1/orders', { params: { query: { status: 'paid' } } }))
import createClient, { type Client } from 'openapi-fetch'
import { retryingFetch, type RetryOptions } from './retrying-fetch.js'
import type { paths } from './schema.js'

export { SellerApiError, type ErrorCode, type ErrorDetail } from './errors.js'
export { unwrap, type Unwrapped } from './unwrap.js'
export { followEvents, type EventPage, type FollowOptions } from './events.js'
export { verifyWebhook, type WebhookEvent } from './webhooks.js'
export { CannotSupply, deliveryHandler, type DeliveryRequest, type Supply, type SupplyContext } from './delivery-endpoint.js'
export type { components, paths, operations } from './schema.js'

export type SellerClient = Client<paths>

export interface SellerClientOptions {
  /** Where the service is, e.g. `https://seller-api.example.com` (no trailing slash). */
  baseUrl: string
  /** The shop's API key (`service_sk_…`). */
  apiKey: string
  retry?: RetryOptions
  /** The fetch to send with (default: the global one). */
  fetch?: typeof fetch
}

export function createSellerClient (options: SellerClientOptions): SellerClient {
  return createClient<paths>({ baseUrl: options.baseUrl, fetch: retryingFetch(options.apiKey, options.retry, options.fetch) })
}
