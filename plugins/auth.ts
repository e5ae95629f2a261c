// Seller API authentication: `Authorization: Bearer <key>` (wins when both are
// sent) or `X-API-Key: <key>`. The key is resolved in onRequest without failing,
// so the rate limiter can count unauthenticated callers per IP; the request is
// refused with 401 right after the limiter (preParsing), before any body is read.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { findActiveApiKey, touchApiKey, type AuthenticatedKey } from '../db/api-keys.js'
import { isWellFormedApiKey } from '../domain/api-key.js'
import { ApiError } from './errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key, or null. */
    apiKey: AuthenticatedKey | null
  }
  interface FastifyInstance {
    resolveApiKey: (request: FastifyRequest) => Promise<void>
    requireApiKey: (request: FastifyRequest) => Promise<void>
  }
}

/** lastUsedAt is advisory: refresh it at most once a minute per key, so it costs no write per request. */
const TOUCH_INTERVAL_MS = 60_000

export function presentedKey (request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    return match ? match[1] : undefined
  }
  const header = request.headers['x-api-key']
  return typeof header === 'string' ? header.trim() : undefined
}

async function authPlugin (fastify: FastifyInstance) {
  fastify.decorateRequest('apiKey', null)

  fastify.decorate('resolveApiKey', async function resolveApiKey (request: FastifyRequest) {
    const secret = presentedKey(request)
    // Malformed keys never reach the database.
    if (!secret || !isWellFormedApiKey(secret)) return
    const key = await findActiveApiKey(fastify.db, secret)
    if (!key) return
    request.apiKey = key
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      await touchApiKey(fastify.db, key.id).catch((err: unknown) => request.log.warn({ err }, 'could not update api key lastUsedAt'))
    }
  })

  fastify.decorate('requireApiKey', async function requireApiKey (request: FastifyRequest) {
    if (!request.apiKey) throw new ApiError(401, 'API_KEY_INVALID', 'The API key is missing, malformed, unknown or revoked.')
  })
}

export default fp(authPlugin, { name: 'auth', dependencies: ['db'] })
