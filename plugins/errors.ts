// One error handler for the whole service: every failure leaves as the envelope
// `{success:false, error:{code, message, details?}}`; 5xx never leak internals.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError, tooLarge, validationError, type ErrorDetail } from '../domain/errors.js'
import { StockKeyError } from '../domain/stock-cipher.js'
import { byCode, stringCode } from '../lib/error-shape.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a path id that is not even well-formed answers: the resource's "not found" (default ORDER_NOT_FOUND). */
    notFound?: () => ApiError
  }
}

/** Fastify's own error codes that are the client's fault, as the errors we answer them with. */
const clientErrors: Record<string, ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: validationError('The request body is not valid JSON.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: validationError('The request body is empty.'),
  FST_ERR_CTP_BODY_TOO_LARGE: tooLarge('The request body is too large.'),
  FST_REQ_FILE_TOO_LARGE: tooLarge('The file is larger than 10 MB.'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: validationError('Unsupported Content-Type: send application/json.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: validationError('Content-Length does not match the body.'),
  FST_INVALID_MULTIPART_CONTENT_TYPE: validationError('The request is not multipart/form-data.'),
  FST_PARTS_LIMIT: validationError('Too many parts in the upload.'),
  FST_FILES_LIMIT: validationError('Send exactly one file, in the part named `file`.'),
  FST_FIELDS_LIMIT: validationError('Too many fields in the upload.'),
  FST_PROTO_VIOLATION: validationError('The request body is not valid JSON.')
}

/** Postgres errors that mean "the database is unavailable", not "the code is wrong". */
const unavailableSqlStates = new Set(['53300', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006'])
const unavailableErrnos = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  // A breaker refusing a call to a dependency it knows is down (domain/circuit-breaker.ts).
  'DEPENDENCY_UNAVAILABLE'
])

/** Causes looked through at most: a chain can be cyclic. */
const MAX_CAUSES = 10

/** Whether `err` (or an error it wraps) says a dependency could not be reached. */
export function isUnavailable (err: unknown): boolean {
  let e = err
  for (let depth = 0; depth < MAX_CAUSES && typeof e === 'object' && e !== null; depth++) {
    const code = stringCode(e)
    if (code !== undefined && (unavailableSqlStates.has(code) || unavailableErrnos.has(code))) return true
    e = (e as { cause?: unknown }).cause
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
    return {
      path: path ? `${where}.${path}` : where,
      message: v.message ?? 'is invalid',
      rule: { keyword: v.keyword, params }
    }
  })
}

/** The 400 the API answers for the schema problems `validation` found in `where` (body, querystring…). */
export function invalidRequest (validation: FastifyError['validation'], where = 'body'): ApiError {
  const details = validationDetails({ validation, validationContext: where } as FastifyError)
  return validationError(`Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`, details)
}

/** The envelope; a detail's `rule` stays inside the service (the portal's words), the API sends path and message. */
export function errorBody (code: string, message: string, details?: ErrorDetail[]) {
  return {
    success: false as const,
    error: details
      ? { code, message, details: details.map(({ path, message }) => ({ path, message })) }
      : { code, message }
  }
}

const send = (reply: FastifyReply, err: ApiError) =>
  reply.code(err.statusCode).send(errorBody(err.code, err.message, err.details))

async function errorsPlugin (fastify: FastifyInstance) {
  fastify.setErrorHandler(function handleError (err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (err instanceof ApiError) {
      // Every 503 says when to come back (docs/reliability.md).
      if (err.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1')
      return send(reply, err)
    }
    // Stock values the configured keys cannot read (docs/stock.md): the operator's to fix, said plainly.
    if (err instanceof StockKeyError) {
      request.log.error({ err: { message: err.message } }, 'stock values unreadable')
      return send(reply, new ApiError('SERVICE_UNAVAILABLE', err.message))
    }
    if (err.validation) {
      // A path id that is not even a well-formed id names nothing that exists.
      if (err.validationContext === 'params') {
        return send(reply, request.routeOptions.config.notFound?.() ?? new ApiError('ORDER_NOT_FOUND', 'Not found.'))
      }
      return send(reply, invalidRequest(err.validation, err.validationContext))
    }
    if (err.statusCode === 429) return send(reply, new ApiError('RATE_LIMIT', err.message))
    const known = byCode(clientErrors, err)
    if (known) return send(reply, known)
    if (isUnavailable(err)) {
      // The dependency's breaker logs the outage once; a line per request would flood the log.
      request.log.debug({ err }, 'dependency unavailable')
      return send(reply.header('retry-after', '1'), new ApiError('SERVICE_UNAVAILABLE'))
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return send(reply, new ApiError('VALIDATION_ERROR', err.message, undefined, err.statusCode))
    }
    request.log.error({ err }, 'unhandled error')
    return send(reply, new ApiError('INTERNAL_ERROR'))
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
    throw new ApiError('SERVICE_UNAVAILABLE', 'This instance is shutting down; retry shortly.')
  })
}

/**
 * Errors Fastify raises before any route or hook runs (a malformed URL, a path
 * parameter too long to be an id): same envelope, and the request id by hand.
 */
export function handleFrameworkError (err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id)
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, new ApiError('NOT_FOUND'))
  return send(reply, validationError('The URL is malformed.'))
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
  const { status, message } = byCode(nodeClientErrors, err) ?? {
    status: 400,
    message: 'The request is not valid HTTP.'
  }
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
  return send(reply, new ApiError('NOT_FOUND', `No route ${request.method} ` +
    `${request.url.split('?')[0].slice(0, 200)}.`))
}

export default fp(errorsPlugin, { name: 'errors' })
