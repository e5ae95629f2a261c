// The service's errors, where the rules live: every code a client can meet, the
// one HTTP status each goes with, and the error class the rules throw. The
// error handler (plugins/errors.ts) sends an ApiError as the envelope
// `{success: false, error: {code, message, details?}}`; docs/api-rules.md lists
// the codes for integrators.

/** Each code with what it means to a client (the OpenAPI document's descriptions). */
export const errorCodes = {
  VALIDATION_ERROR: 'The request is malformed: a parameter, header or body breaks the rules (`details` names each problem). A body over its size limit is 413 with this code.',
  API_KEY_INVALID: 'The API key (or the operator token) is missing, unknown or revoked.',
  NOT_FOUND: 'No such route, public file, webhook endpoint or delivery, delivery endpoint or delivery request; also a path whose parameter is longer than 500 characters.',
  ORDER_NOT_FOUND: 'The resource in the path (an order, product, category, currency rate or image) does not exist for this shop.',
  ORDER_INVALID_STATUS: 'The order\'s current status does not allow this action.',
  IDEMPOTENCY_IN_PROGRESS: 'A request with the same `Idempotency-Key` is still being processed; retry shortly.',
  IDEMPOTENCY_KEY_REUSED: 'The `Idempotency-Key` was used before with a different request.',
  STOCK_NOT_EMPTY: 'The stock\'s `optionFieldId` can change only while no item is available.',
  STOCK_ITEM_UNAVAILABLE: 'A stock item to remove is not available (already delivered or removed).',
  CURSOR_EXPIRED: 'The cursor points before the oldest event still kept: start again without `after`.',
  RATE_LIMIT: 'Too many requests in the window; retry after `Retry-After` seconds.',
  INTERNAL_ERROR: 'An unexpected error; the `X-Request-Id` finds it in the logs.',
  SERVICE_UNAVAILABLE: 'A dependency (the database) is unreachable, the instance is overloaded or shutting down; retry after `Retry-After` seconds (1 when absent).'
} as const

export type ErrorCode = keyof typeof errorCodes

export interface ErrorDetail { path: string, message: string }

/** An error the client should see as is: stable code, HTTP status, human message. */
export class ApiError extends Error {
  constructor (
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[]
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/**
 * 404 ORDER_NOT_FOUND, the API's code for any missing resource of the shop's
 * catalog or orders (an order, product, category, currency rate or image).
 */
export const orderNotFound = (what: string) => new ApiError(404, 'ORDER_NOT_FOUND', `${what} not found.`)
export const validationError = (message: string, details?: ErrorDetail[]) => new ApiError(400, 'VALIDATION_ERROR', message, details)
