// The error a failed call turns into: the envelope's `error` with the HTTP
// status and the request's id, so a bot can branch on `code` and quote the id.
import type { components } from './schema.js'

type Schemas = components['schemas']
type ErrorComponent = Schemas[Extract<keyof Schemas, `${string}Error`>]
/** Every error code the API documents (ORDER_INVALID_STATUS, RATE_LIMIT, …). */
export type ErrorCode = NonNullable<NonNullable<ErrorComponent['error']>['code']>
export type ErrorDetail = NonNullable<Schemas['ErrorResponse']['error']['details']>[number]

export class SellerApiError extends Error {
  readonly status: number
  readonly code: ErrorCode | 'NETWORK_ERROR'
  readonly details: ErrorDetail[]
  readonly requestId: string | null

  constructor (
    status: number,
    code: ErrorCode | 'NETWORK_ERROR',
    message: string,
    details: ErrorDetail[] = [],
    requestId: string | null = null
  ) {
    super(message)
    this.status = status
    this.code = code
    this.details = details
    this.requestId = requestId
    this.name = 'SellerApiError'
  }

  /**
   * From a response that is not 2xx: its envelope, or the status alone when the
   * body is not one. What a proxy in between sends is not trusted to be the
   * envelope: `{"error": {"code": 503}}` (a number) gives the status's code.
   */
  static from (response: Response, body: unknown): SellerApiError {
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined
    const fields = typeof error === 'object' && error !== null ? error : {}
    const { code, message, details } = fields as { code?: unknown, message?: unknown, details?: unknown }
    return new SellerApiError(
      response.status,
      typeof code === 'string' ? code as ErrorCode : (response.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR'),
      typeof message === 'string' ? message : `HTTP ${response.status}`,
      Array.isArray(details) ? details as ErrorDetail[] : [],
      response.headers.get('x-request-id')
    )
  }
}
