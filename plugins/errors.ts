// One error handler for the whole service: every failure leaves as the envelope
// `{success:false, error:{code, message, details?}}`; 5xx never leak internals.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError, type ErrorDetail } from '../domain/errors.js'
import { StockKeyError } from '../domain/stock-cipher.js'

/** Fastify's own error codes that are the client's fault, mapped to our codes. */
const clientErrors: Record<string, { status: number, code: string, message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'VALIDATION_ERROR', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'VALIDATION_ERROR', message: 'The request body is empty.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'VALIDATION_ERROR', message: 'The request body is too large.' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, code: 'VALIDATION_ERROR', message: 'The file is larger than 10 MB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 400, code: 'VALIDATION_ERROR', message: 'Unsupported Content-Type: send application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'VALIDATION_ERROR', message: 'Content-Length does not match the body.' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 400, code: 'VALIDATION_ERROR', message: 'The request is not multipart/form-data.' },
  FST_PARTS_LIMIT: { status: 400, code: 'VALIDATION_ERROR', message: 'Too many parts in the upload.' },
  FST_FILES_LIMIT: { status: 400, code: 'VALIDATION_ERROR', message: 'Send exactly one file, in the part named `file`.' },
  FST_FIELDS_LIMIT: { status: 400, code: 'VALIDATION_ERROR', message: 'Too many fields in the upload.' },
  FST_PROTO_VIOLATION: { status: 400, code: 'VALIDATION_ERROR', message: 'The request body is not valid JSON.' }
}

/** Postgres errors that mean "the database is unavailable", not "the code is wrong". */
const unavailableSqlStates = new Set(['53300', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006'])
const unavailableErrnos = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  // A breaker refusing a call to a dependency it knows is down (domain/circuit-breaker.ts).
  'DEPENDENCY_UNAVAILABLE'
])

/** Whether `err` (or an error it wraps) says a dependency could not be reached. */
export function isUnavailable (err: unknown): boolean {
  for (let e = err as { code?: string, cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string' && (unavailableSqlStates.has(e.code) || unavailableErrnos.has(e.code))) return true
  }
  return false
}

/** Problems reported at most; a body wrong in thousands of places gets the first ones. */
const MAX_DETAILS = 100

function validationDetails (err: FastifyError): ErrorDetail[] {
  const where = err.validationContext ?? 'body'
  return (err.validation ?? []).slice(0, MAX_DETAILS).map((v) => {
    const params = v.params as Record<string, unknown>
    let path = v.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.')
    // Ajv reports a missing property at its parent; name the property itself.
    if (v.keyword === 'required' && typeof params.missingProperty === 'string') {
      path = path ? `${path}.${params.missingProperty}` : params.missingProperty
    }
    return { path: path ? `${where}.${path}` : where, message: v.message ?? 'is invalid' }
  })
}

export function errorBody (code: string, message: string, details?: ErrorDetail[]) {
  return { success: false as const, error: details ? { code, message, details } : { code, message } }
}

async function errorsPlugin (fastify: FastifyInstance) {
  fastify.setErrorHandler(function handleError (err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (err instanceof ApiError) {
      // Every 503 says when to come back (docs/reliability.md).
      if (err.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1')
      return reply.code(err.statusCode).send(errorBody(err.code, err.message, err.details))
    }
    // Stock values the configured keys cannot read (docs/stock.md): the operator's to fix, said plainly.
    if (err instanceof StockKeyError) {
      request.log.error({ err: { message: err.message } }, 'stock values unreadable')
      return reply.code(503).send(errorBody('SERVICE_UNAVAILABLE', err.message))
    }
    if (err.validation) {
      // A path id that is not even a well-formed id names nothing that exists.
      if (err.validationContext === 'params') {
        return reply.code(404).send(errorBody('ORDER_NOT_FOUND', 'Not found.'))
      }
      const details = validationDetails(err)
      return reply.code(400).send(errorBody('VALIDATION_ERROR', `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, details))
    }
    if (err.statusCode === 429) {
      return reply.code(429).send(errorBody('RATE_LIMIT', err.message))
    }
    const known = err.code ? clientErrors[err.code] : undefined
    if (known) return reply.code(known.status).send(errorBody(known.code, known.message))
    if (isUnavailable(err)) {
      // The dependency's breaker logs the outage once; a line per request would flood the log.
      request.log.debug({ err }, 'dependency unavailable')
      return reply.code(503).header('retry-after', '1').send(errorBody('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly.'))
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send(errorBody('VALIDATION_ERROR', err.message))
    }
    request.log.error({ err }, 'unhandled error')
    return reply.code(500).send(errorBody('INTERNAL_ERROR', 'An unexpected error occurred.'))
  })

  fastify.setNotFoundHandler(handleNotFound)

  // While shutting down, requests still arriving on open keep-alive connections get
  // the envelope (Fastify's own return503OnClosing answer would not be one).
  let closing = false
  fastify.addHook('preClose', async () => { closing = true })
  fastify.addHook('onRequest', async function refuseWhileClosing (request, reply) {
    if (!closing) return
    // Another instance answers at once: the client reconnects through the balancer.
    reply.header('connection', 'close').header('x-request-id', request.id).header('retry-after', '1')
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'This instance is shutting down; retry shortly.')
  })
}

/**
 * Errors Fastify raises before any route or hook runs (a malformed URL, a path
 * parameter too long to be an id): same envelope, and the request id by hand.
 */
export function handleFrameworkError (err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id)
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return reply.code(404).send(errorBody('NOT_FOUND', 'Not found.'))
  return reply.code(400).send(errorBody('VALIDATION_ERROR', 'The URL is malformed.'))
}

/** Node's own refusals, before Fastify sees a request: status and message by error code. */
const nodeClientErrors: Record<string, { status: number, message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'The request headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' }
}

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses (a bad
 * header character, headers over the size limit, a request too slow to arrive)
 * get the envelope and an X-Request-Id like every other answer, then the socket
 * is closed. Only the error code is logged: the error's `rawPacket` holds the
 * request's bytes, API key included.
 */
export function handleClientError (this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const { status, message } = nodeClientErrors[err.code ?? ''] ?? { status: 400, message: 'The request is not valid HTTP.' }
  this.log.debug({ code: err.code, status }, 'client error')
  // A response already under way (an upload streaming to its handler) cannot get a second one.
  const response = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(errorBody('VALIDATION_ERROR', message))
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}

export function handleNotFound (request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errorBody('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0].slice(0, 200)}.`))
}

export default fp(errorsPlugin, { name: 'errors' })
