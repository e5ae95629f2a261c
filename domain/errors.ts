// The service's errors, where the rules live, in one table as Fastify's
// lib/errors.js keeps its own: every code a client can meet with its HTTP status,
// default message and meaning side by side. Call sites throw by code
// (`new ApiError('STOCK_NOT_EMPTY')`); the error handler (plugins/errors.ts) sends
// an ApiError as the envelope `{success: false, error: {code, message, details?}}`;
// the OpenAPI document's error responses come from the same table
// (schemas/error-codes.ts); docs/api-rules.md lists the codes for integrators.

interface ErrorSpec {
  /** The HTTP status the code goes with. */
  status: number
  /** Another status it also comes with (a body over its size limit is 413 VALIDATION_ERROR). */
  alsoStatus?: number
  /** The message when the call site gives none, and the OpenAPI example's unless `example` says otherwise. */
  message: string
  /** What the code means to a client: the OpenAPI document's description. */
  means: string
  /** Listed for every operation that answers `status` (the document's default for the status)… */
  anyOperation?: boolean
  /** …and first there: the code most of the operations answering `status` carry. */
  leads?: boolean
  /** Operations that name only some codes for `status`: this one, with the others naming them, in table order. */
  operations?: string[]
}

const table = {
  VALIDATION_ERROR: {
    status: 400,
    alsoStatus: 413,
    anyOperation: true,
    message: 'Invalid request.',
    means: 'The request is malformed: a parameter, header or body breaks the rules (`details` names each problem). ' +
      'A body over its size limit is 413 with this code.'
  },
  API_KEY_INVALID: {
    status: 401,
    anyOperation: true,
    message: 'The API key is missing, malformed, unknown or revoked.',
    means: 'The API key (or the operator token) is missing, unknown or revoked.'
  },
  NOT_FOUND: {
    status: 404,
    anyOperation: true,
    message: 'Not found.',
    means: 'No such route, public file, webhook endpoint or delivery, delivery endpoint or delivery request; ' +
      'also a path whose parameter is longer than 500 characters.',
    operations: [
      'getMediaFile',
      'getWebhookEndpoint', 'updateWebhookEndpoint', 'deleteWebhookEndpoint', 'rotateWebhookSecret',
      'testWebhookEndpoint', 'listWebhookDeliveries', 'retryWebhookDelivery',
      'getDeliveryEndpoint', 'deleteDeliveryEndpoint', 'rotateDeliveryEndpointSecret', 'testDeliveryEndpoint',
      'getClaim', 'replaceClaim', 'refundClaim', 'rejectClaim', 'escalateClaim', 'resolveClaim',
      'getChatRule', 'replaceChatRule', 'deleteChatRule'
    ]
  },
  ORDER_NOT_FOUND: {
    status: 404,
    anyOperation: true,
    leads: true,
    message: 'Order not found.',
    means: 'The resource in the path (an order, product, category, currency rate or image) does not exist for ' +
      'this shop.',
    operations: [
      'getStock', 'updateStock', 'addStockItems', 'listStockItems', 'testDeliveryEndpoint', 'replaceChatRule'
    ]
  },
  ORDER_INVALID_STATUS: {
    status: 409,
    message: 'The order\'s current status does not allow this action.',
    means: 'The order\'s current status does not allow this action.',
    operations: [
      'takeOrder', 'deliverOrder', 'cancelOrder', 'confirmOrder', 'retryDeliveryRequest',
      'openClaim', 'replaceClaim', 'refundClaim', 'resolveClaim', 'previewChatRule'
    ]
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    anyOperation: true,
    message: 'A request with this Idempotency-Key is still being processed.',
    means: 'A request with the same `Idempotency-Key` is still being processed; retry shortly.',
    operations: ['takeOrder', 'deliverOrder', 'cancelOrder', 'openClaim', 'replaceClaim', 'refundClaim',
      'rejectClaim', 'escalateClaim', 'resolveClaim', 'createChatRule']
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    anyOperation: true,
    message: 'This Idempotency-Key was already used with a different request.',
    means: 'The `Idempotency-Key` was used before with a different request.'
  },
  STOCK_NOT_EMPTY: {
    status: 409,
    message: 'optionFieldId can change only while no item is available: remove the available items first.',
    means: 'The stock\'s `optionFieldId` can change only while no item is available.',
    operations: ['updateStock']
  },
  STOCK_ITEM_UNAVAILABLE: {
    status: 409,
    message: 'A stock item is not available (already delivered or removed).',
    means: 'A stock item to remove is not available (already delivered or removed).',
    operations: ['removeStockItems']
  },
  CLAIM_ALREADY_OPEN: {
    status: 409,
    message: 'The order already has an open or escalated claim.',
    means: 'The order already has an open or escalated claim (this code wins over CLAIM_LIMIT).',
    operations: ['openClaim', 'escalateClaim']
  },
  CLAIM_LIMIT: {
    status: 409,
    message: 'The order already had 3 claims.',
    means: 'The order already had its 3 claims.',
    operations: ['openClaim']
  },
  CLAIM_INVALID_STATUS: {
    status: 409,
    message: 'The claim\'s status does not allow this action.',
    means: 'The claim\'s status does not allow this action (also: another action on it won a moment before).',
    operations: ['replaceClaim', 'refundClaim', 'rejectClaim', 'escalateClaim', 'resolveClaim']
  },
  STOCK_INSUFFICIENT: {
    status: 409,
    message: 'The stock holds too few available items for the replacement.',
    means: 'A replacement from stock found too few available items of the order\'s option; nothing changed.',
    operations: ['replaceClaim']
  },
  CHAT_RULE_LIMIT: {
    status: 409,
    message: 'The shop already has 100 chat rules: delete one first.',
    means: 'The shop already has its 100 chat rules (deleted ones do not count).',
    operations: ['createChatRule']
  },
  CSRF_INVALID: {
    status: 403,
    message: 'The X-CSRF-Token header is missing or does not match this session.',
    means: 'A seller portal change without the session\'s CSRF token in `X-CSRF-Token`; nothing changed.'
  },
  READ_ONLY: {
    status: 403,
    message: 'This portal session is read-only.',
    means: 'The seller portal session is read-only: it shows the settings but changes nothing.'
  },
  SESSION_INVALID: {
    status: 401,
    message: 'The portal session has ended; open a new link from the marketplace.',
    means: 'No live seller portal session: none was started, or it ended ' +
      '(12 h after entering, 1 h without a request, or revoked).'
  },
  CURSOR_EXPIRED: {
    status: 410,
    anyOperation: true,
    message: 'The cursor is older than the event retention; ' +
      'start again without `after` (from the oldest retained event) or with `after=latest`.',
    means: 'The cursor points before the oldest event still kept: start again without `after`.'
  },
  RATE_LIMIT: {
    status: 429,
    anyOperation: true,
    message: 'Rate limit exceeded; retry later.',
    means: 'Too many requests in the window; retry after `Retry-After` seconds.'
  },
  INTERNAL_ERROR: {
    status: 500,
    anyOperation: true,
    message: 'An unexpected error occurred.',
    means: 'An unexpected error; the `X-Request-Id` finds it in the logs.'
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    anyOperation: true,
    message: 'The service is temporarily unavailable; retry shortly.',
    means: 'A dependency (the database) is unreachable, the instance is overloaded or shutting down; ' +
      'retry after `Retry-After` seconds (1 when absent).'
  }
} as const satisfies Record<string, ErrorSpec>

export type ErrorCode = keyof typeof table

/** The error table: each code's status, default message and meaning. */
export const errors: Readonly<Record<ErrorCode, Readonly<ErrorSpec>>> = table

/**
 * Which rule a value broke, in a form other languages can be said from (the portal's pages): the validator's
 * keyword (`minLength`, `pattern`, `format`…, or the service's own such as `x-https-url`) and its params, and the
 * field's schema limits when known. Never sent: the API answers `path` and `message` only.
 */
export interface DetailRule {
  keyword: string
  params: Record<string, unknown>
  limits?: Record<string, unknown>
}

export interface ErrorDetail { path: string, message: string, rule?: DetailRule }

/** The service's own rules a detail can name, besides the validator's keywords, and their params. */
export interface ServiceRules {
  'x-absolute-url': Record<string, never>
  'x-https-url': Record<string, never>
  'x-url-credentials': Record<string, never>
  'x-url-length': { max: number }
  'x-public-address': { reason: string }
  'x-no-nul': Record<string, never>
  'x-trimmed-length': { min: number, max: number }
  'x-time-zone': Record<string, never>
  'x-date': Record<string, never>
  'x-range-order': Record<string, never>
  'x-range-length': { max: number }
  'x-keyword-count': { max: number }
  'x-keyword-twice': { keyword: string }
  'x-keyword-only': Record<string, never>
  'x-reminder-minutes': { min: number, max: number }
  'x-reminder-only': Record<string, never>
  'x-template-unclosed': { text: string }
  'x-placeholder-claims': { name: string }
  'x-placeholder-unknown': { name: string }
  'x-endpoint-limit': { max: number }
  'x-values-count': { count: number }
  'x-line-too-long': { line: number, max: number }
}
export type ServiceRule = keyof ServiceRules

/** A service rule as a detail's (or an error's) rule. */
export const ruleOf = <K extends ServiceRule>(keyword: K, params: ServiceRules[K]): DetailRule => ({ keyword, params })

/** An error the client should see as is: stable code, the table's HTTP status, a human message. */
export class ApiError extends Error {
  readonly statusCode: number
  readonly code: ErrorCode
  readonly details?: ErrorDetail[]
  /** The rule an error without details broke (see DetailRule), for the portal's words. */
  readonly rule?: DetailRule

  constructor (
    code: ErrorCode,
    message: string = errors[code].message,
    details?: ErrorDetail[],
    statusCode: number = errors[code].status,
    rule?: DetailRule
  ) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = statusCode
    this.code = code
    this.details = details
    this.rule = rule
  }
}

/**
 * 404 ORDER_NOT_FOUND, the API's code for any missing resource of the shop's
 * catalog or orders (an order, product, shop, API key, category, currency rate or image).
 */
export const notFound = (what: string) => new ApiError('ORDER_NOT_FOUND', `${what} not found.`)
export const validationError = (message: string, details?: ErrorDetail[], rule?: DetailRule) =>
  new ApiError('VALIDATION_ERROR', message, details, undefined, rule)
/** 413 VALIDATION_ERROR: a body or file over its size limit. */
export const tooLarge = (message: string) => new ApiError('VALIDATION_ERROR', message, undefined, 413)
