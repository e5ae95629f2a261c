// Which error codes an operation can answer with, by HTTP status: the OpenAPI
// document turns each into an enum on `error.code` (lib/openapi-document.ts),
// and the drift check (test/fixtures/openapi-drift.ts) holds every error the
// test suite receives to it. The codes themselves are domain/errors.ts's.

import type { ErrorCode } from '../domain/errors.js'

/** The codes a status can carry on any operation that declares it. */
export const codesByStatus: Record<number, ErrorCode[]> = {
  400: ['VALIDATION_ERROR'],
  401: ['API_KEY_INVALID'],
  404: ['ORDER_NOT_FOUND', 'NOT_FOUND'],
  409: ['IDEMPOTENCY_IN_PROGRESS'],
  410: ['CURSOR_EXPIRED'],
  413: ['VALIDATION_ERROR'],
  422: ['IDEMPOTENCY_KEY_REUSED'],
  429: ['RATE_LIMIT'],
  500: ['INTERNAL_ERROR'],
  503: ['SERVICE_UNAVAILABLE']
}

/** Where an operation's codes differ from `codesByStatus`. */
export const operationCodes: Record<string, Record<number, ErrorCode[]>> = {
  takeOrder: { 409: ['ORDER_INVALID_STATUS', 'IDEMPOTENCY_IN_PROGRESS'] },
  deliverOrder: { 409: ['ORDER_INVALID_STATUS', 'IDEMPOTENCY_IN_PROGRESS'] },
  cancelOrder: { 409: ['ORDER_INVALID_STATUS', 'IDEMPOTENCY_IN_PROGRESS'] },
  confirmOrder: { 409: ['ORDER_INVALID_STATUS'] },
  getStock: { 404: ['ORDER_NOT_FOUND'] },
  updateStock: { 404: ['ORDER_NOT_FOUND'], 409: ['STOCK_NOT_EMPTY'] },
  addStockItems: { 404: ['ORDER_NOT_FOUND'] },
  listStockItems: { 404: ['ORDER_NOT_FOUND'] },
  removeStockItems: { 404: ['ORDER_NOT_FOUND', 'NOT_FOUND'], 409: ['STOCK_ITEM_UNAVAILABLE'] },
  getMediaFile: { 404: ['NOT_FOUND'] },
  getWebhookEndpoint: { 404: ['NOT_FOUND'] },
  updateWebhookEndpoint: { 404: ['NOT_FOUND'] },
  deleteWebhookEndpoint: { 404: ['NOT_FOUND'] },
  rotateWebhookSecret: { 404: ['NOT_FOUND'] },
  testWebhookEndpoint: { 404: ['NOT_FOUND'] },
  listWebhookDeliveries: { 404: ['NOT_FOUND'] },
  retryWebhookDelivery: { 404: ['NOT_FOUND'] },
  getDeliveryEndpoint: { 404: ['NOT_FOUND'] },
  deleteDeliveryEndpoint: { 404: ['NOT_FOUND'] },
  rotateDeliveryEndpointSecret: { 404: ['NOT_FOUND'] },
  testDeliveryEndpoint: { 404: ['NOT_FOUND', 'ORDER_NOT_FOUND'] },
  getDeliveryRequest: { 404: ['ORDER_NOT_FOUND', 'NOT_FOUND'] },
  retryDeliveryRequest: { 404: ['ORDER_NOT_FOUND', 'NOT_FOUND'], 409: ['ORDER_INVALID_STATUS'] }
}

/** The component name of one code's error response: `RATE_LIMIT` → `RateLimitError`. */
export const errorComponentName = (code: ErrorCode) =>
  code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()).replace(/Error$/, '') + 'Error'

/**
 * What a response with `code` says, as the service words it (the messages of
 * plugins/errors.ts, plugins/rate-limit.ts and the routes): the examples of the
 * OpenAPI document's error responses.
 */
export function errorExample (code: ErrorCode, status: number): { message: string, details?: Array<{ path: string, message: string }> } {
  switch (code) {
    case 'VALIDATION_ERROR':
      return status === 413
        ? { message: 'The request body is too large.' }
        : { message: 'Invalid request: body.title must be 1–200 characters after trimming surrounding whitespace.', details: [{ path: 'body.title', message: 'must be 1–200 characters after trimming surrounding whitespace' }] }
    case 'API_KEY_INVALID': return { message: 'The API key is missing, malformed, unknown or revoked.' }
    case 'NOT_FOUND': return { message: 'Not found.' }
    case 'ORDER_NOT_FOUND': return { message: 'Order not found.' }
    case 'ORDER_INVALID_STATUS': return { message: 'Cannot deliver an order that is paid.' }
    case 'IDEMPOTENCY_IN_PROGRESS': return { message: 'A request with this Idempotency-Key is still being processed.' }
    case 'IDEMPOTENCY_KEY_REUSED': return { message: 'This Idempotency-Key was already used with a different request.' }
    case 'CURSOR_EXPIRED': return { message: 'The cursor is older than the event retention; start again without `after` (from the oldest retained event) or with `after=latest`.' }
    case 'RATE_LIMIT': return { message: 'Rate limit exceeded; retry in 1 minute.' }
    case 'INTERNAL_ERROR': return { message: 'An unexpected error occurred.' }
    case 'SERVICE_UNAVAILABLE': return { message: 'The service is temporarily unavailable; retry shortly.' }
    case 'STOCK_NOT_EMPTY': return { message: 'optionFieldId can change only while no item is available: remove the available items first.' }
    case 'STOCK_ITEM_UNAVAILABLE': return { message: 'Stock item 0b7c5a7e-3f41-4f3e-9a51-2f0f0c1d2e3f is not available (already delivered or removed).' }
  }
}
