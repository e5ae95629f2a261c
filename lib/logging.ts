// What the service's log lines may carry (docs/security.md, What is logged):
// never a secret, a request body or a database query's parameters, at any level.
//
// Three layers, all in the logger's options (serverOptions in app.ts):
// - `serializeError` is the one place that decides what a logged error carries:
//   its type, codes and cause chain, and a stack without the message; the message
//   only of errors that are not the database's (drizzle's DrizzleQueryError puts
//   the failed SQL and its parameters into its message, and Postgres' own messages
//   can quote a value: `invalid input syntax for type uuid: "…"`).
// - `serializeRequest` logs the URL with the values of query parameters whose
//   name says key, token, secret, password or signature replaced.
// - `redactSecrets` runs over every finished line: API keys (service_sk_…),
//   webhook secrets (whsec_…), the seller portal's link and session tokens
//   (portal_link_…, portal_sess_…) and the operator token, wherever they appear.
// Paths that hold a secret by name (headers, Redis arguments) are redacted too.
import type { FastifyRequest } from 'fastify'
import type { LoggerOptions } from 'pino'

export const REDACTED = '[redacted]'

/**
 * Log paths that can hold a secret, redacted at the logger whoever logs them:
 * the key headers wherever a library logs request headers (@fastify/multipart
 * logs busboy's options, all headers included, at trace), the raw bytes of a
 * request Node refused, Redis command arguments (stored responses), and any
 * property named secret or token.
 */
export const redactedLogPaths = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers["x-csrf-token"]',
  'headers.authorization', 'headers["x-api-key"]', '*.headers.authorization', '*.headers["x-api-key"]',
  'headers.cookie', '*.headers.cookie', 'headers["set-cookie"]', '*.headers["set-cookie"]',
  'headers["x-csrf-token"]', '*.headers["x-csrf-token"]',
  'busboyOptions.headers',
  'err.rawPacket', '*.rawPacket', 'err.command.args', '*.command.args',
  'secret', '*.secret', 'token', '*.token'
]

/**
 * Secret-shaped strings, even cut short: an API key (domain/api-key.ts), a webhook
 * secret (domain/webhook-signing.ts), a portal link or session token (domain/portal-token.ts).
 */
const SECRET_SHAPES = /service_sk_[A-Za-z0-9]+|whsec_[A-Za-z0-9+/=_-]+|portal_(?:link|sess)_[A-Za-z0-9_-]+/g
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Replaces every secret-shaped string, and each of `known` (the operator token), in a finished log line. */
export function secretRedactor (known: ReadonlyArray<string | undefined>): (line: string) => string {
  const literals = known.filter((s): s is string => typeof s === 'string' && s.length >= 8)
  const pattern = literals.length === 0
    ? SECRET_SHAPES
    : new RegExp(`${SECRET_SHAPES.source}|${literals.map(escapeRegExp).join('|')}`, 'g')
  return (line) => line.replace(pattern, REDACTED)
}

/** Query parameters whose values are never logged, by name. */
const SENSITIVE_PARAMETER = /key|token|secret|passw|signature|auth/i

/** The URL as logged: the values of sensitive-looking query parameters replaced. */
export function loggedUrl (url: string): string {
  const question = url.indexOf('?')
  if (question < 0) return url
  const query = url.slice(question + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=')
    const name = equals < 0 ? pair : pair.slice(0, equals)
    let decoded = name
    try { decoded = decodeURIComponent(name) } catch {}
    return equals >= 0 && SENSITIVE_PARAMETER.test(decoded) ? `${name}=${REDACTED}` : pair
  })
  return `${url.slice(0, question)}?${query.join('&')}`
}

export function serializeRequest (request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort
  }
}

/** Properties of an error that say what went wrong without quoting any data. */
const SAFE_PROPERTIES = ['code', 'errno', 'syscall', 'statusCode', 'severity', 'routine', 'schema_name', 'table_name',
  'column_name', 'constraint_name'] as const
const MAX_CAUSES = 5

/** Errors of the database or of a query sent to it: their messages can quote the query's values. */
function isDatabaseError (err: Record<string, unknown>): boolean {
  const names = [err.name, (err.constructor as { name?: string } | undefined)?.name]
  return names.includes('DrizzleQueryError') || names.includes('PostgresError') ||
    'query' in err || 'params' in err || 'parameters' in err
}

/** The stack's frames, without the message lines it starts with. */
const framesOf = (stack: unknown) =>
  typeof stack === 'string' ? stack.split('\n').filter((line) => line.startsWith('    at ')).join('\n') : undefined

/** The one decision of what a logged error carries (pino's `err` serializer). */
export function serializeError (value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return { message: typeof value === 'string' ? value : String(value) }
  const err = value as Record<string, unknown>
  const className = (err.constructor as { name?: string } | undefined)?.name
  const named = className && className !== 'Error' && className !== 'Object'
  const out: Record<string, unknown> = { type: named ? className : String(err.name ?? 'Error') }
  if (!isDatabaseError(err) && typeof err.message === 'string') out.message = err.message
  for (const property of SAFE_PROPERTIES) {
    const v = err[property]
    if (typeof v === 'string' || typeof v === 'number') out[property] = v
  }
  const stack = framesOf(err.stack)
  if (stack) out.stack = stack
  if (err.cause !== undefined && depth < MAX_CAUSES) out.cause = serializeError(err.cause, depth + 1)
  return out
}

/** The password in a connection URL, if any. */
function passwordOf (url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    return decodeURIComponent(new URL(url).password) || undefined
  } catch {
    return undefined
  }
}

/**
 * The logger's options: `secrets` are the operator token and the connection URLs, whose passwords are never
 * logged either.
 */
export function loggerOptions (
  level: string, secrets: { internalToken?: string, databaseUrl?: string, redisUrl?: string }
): LoggerOptions {
  return {
    level,
    redact: { paths: redactedLogPaths, censor: REDACTED },
    serializers: { err: (err: unknown) => serializeError(err), req: serializeRequest as never },
    hooks: {
      streamWrite: secretRedactor([secrets.internalToken, passwordOf(secrets.databaseUrl),
        passwordOf(secrets.redisUrl)])
    }
  }
}
