// The typed client of the Shop Seller Automation API: openapi-fetch over the
// types openapi-typescript generates from the published document
// (client/schema.d.ts, `npm run client:generate`), with the key header,
// automatic Idempotency-Keys and retries (client/retrying-fetch.ts), the
// envelope unwrapped (`unwrap`), the events feed as an async iterator
// (client/events.ts), webhook verification (client/webhooks.ts), a GET
// product turned into a PUT body (client/products.ts), stock uploads
// (client/stock.ts) and the delivery endpoint's handler (client/delivery-endpoint.ts).
//
//   const seller = createSellerClient({ baseUrl, apiKey })
//   const { orders } = await unwrap(seller.GET('/v1/orders', { params: { query: { status: 'paid' } } }))
export { createSellerClient, type SellerClient, type SellerClientOptions } from './seller-client.js'
export { SellerApiError, type ErrorCode, type ErrorDetail } from './errors.js'
export { unwrap, type Unwrapped } from './unwrap.js'
export { followEvents, type EventPage, type FollowOptions } from './events.js'
export { verifyWebhook, type WebhookEvent } from './webhooks.js'
export { productInput, type Product, type ProductInput } from './products.js'
export { addStock, STOCK_VALUES_PER_CALL, type AddStockResult, type Stock } from './stock.js'
export {
  CannotSupply, deliveryHandler, type DeliveryRequest, type Supply,
  type SupplyContext
} from './delivery-endpoint.js'
export type { components, paths, operations } from './schema.js'
