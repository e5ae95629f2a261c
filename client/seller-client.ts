// The client itself: openapi-fetch typed by the published document, sending
// through the retrying fetch (key header, Idempotency-Keys, 429/503 retries).
import createClient, { type Client } from 'openapi-fetch'
import { retryingFetch, type RetryOptions } from './retrying-fetch.js'
import type { paths } from './schema.js'

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
  return createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: retryingFetch(options.apiKey, options.retry, options.fetch)
  })
}
