// Which error codes an operation can answer with, by HTTP status, derived from
// the error table (domain/errors.ts): the OpenAPI document turns each into an
// enum on `error.code` (lib/openapi-document.ts), and the drift check
// (test/fixtures/openapi-drift.ts) holds every error the test suite receives to it.

import { errors, type ErrorCode } from '../domain/errors.js'

const table = Object.entries(errors) as Array<[ErrorCode, (typeof errors)[ErrorCode]]>

/** The codes a status can carry on any operation that declares it. */
export const codesByStatus: Record<number, ErrorCode[]> = {}
for (const [code, spec] of table) {
  if (!spec.anyOperation) continue
  for (const status of [spec.status, spec.alsoStatus]) {
    if (status === undefined) continue
    const codes = codesByStatus[status] ??= []
    if (spec.leads) codes.unshift(code)
    else codes.push(code)
  }
}

/** Where an operation's codes differ from `codesByStatus`: the codes naming it, at their status. */
export const operationCodes: Record<string, Record<number, ErrorCode[]>> = {}
for (const [code, spec] of table) {
  for (const operation of spec.operations ?? []) {
    ((operationCodes[operation] ??= {})[spec.status] ??= []).push(code)
  }
}

/** The component name of one code's error response: `RATE_LIMIT` → `RateLimitError`. */
export const errorComponentName = (code: ErrorCode) =>
  code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()).replace(/Error$/, '') + 'Error'

/** Examples whose message is not the table's default: a real instance of a message with variable parts. */
const examples: Partial<Record<ErrorCode, { message: string, details?: Array<{ path: string, message: string }> }>> = {
  VALIDATION_ERROR: {
    message: 'Invalid request: body.title must be 1–200 characters after trimming surrounding whitespace.',
    details: [{ path: 'body.title', message: 'must be 1–200 characters after trimming surrounding whitespace' }]
  },
  ORDER_INVALID_STATUS: { message: 'Cannot deliver an order that is paid.' },
  RATE_LIMIT: { message: 'Rate limit exceeded; retry in 1 minute.' },
  STOCK_ITEM_UNAVAILABLE: {
    message: 'Stock item 0b7c5a7e-3f41-4f3e-9a51-2f0f0c1d2e3f is not available (already delivered or removed).'
  }
}

/**
 * What a response with `code` says, as the service words it: the examples of
 * the OpenAPI document's error responses.
 */
export function errorExample (
  code: ErrorCode, status: number
): { message: string, details?: Array<{ path: string, message: string }> } {
  if (code === 'VALIDATION_ERROR' && status === 413) return { message: 'The request body is too large.' }
  return examples[code] ?? { message: errors[code].message }
}
