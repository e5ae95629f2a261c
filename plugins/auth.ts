// Seller API authentication: `Authorization: Bearer <key>` (wins when both are
// sent) or `X-API-Key: <key>`. The key is resolved in onRequest without failing,
// so the rate limiter can count unauthenticated callers per IP; the request is
// refused with 401 right after the limiter (preParsing), before any body is read.
// Resolved keys are cached in memory (api-key-cache.ts); a cached key is
// confirmed by the rate limiter's reply (confirmApiKey) or looked up again.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { findActiveApiKey, touchApiKey, type AuthenticatedKey } from '../db/api-keys.js'
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js'
import { ApiKeyCache, publishRevocation, type PendingKeyCheck } from './api-key-cache.js'
import { ApiError } from './errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key, or null. */
    apiKey: AuthenticatedKey | null
    /** Set while `apiKey` comes from the cache and still awaits the rate limiter's confirmation. */
    apiKeyCheck: PendingKeyCheck | null
  }
  interface FastifyInstance {
    apiKeyCache: ApiKeyCache
    resolveApiKey: (request: FastifyRequest) => Promise<void>
    confirmApiKey: (request: FastifyRequest) => Promise<void>
    requireApiKey: (request: FastifyRequest) => Promise<void>
    /** Makes a committed revocation act on the next request of every instance. */
    announceKeyRevocation: () => Promise<void>
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
  const { redis, config } = fastify
  const cache = new ApiKeyCache(redis ? 'shared' : fastify.database.kind === 'pglite' ? 'local' : 'off')
  fastify.decorate('apiKeyCache', cache)
  fastify.decorateRequest('apiKey', null)
  fastify.decorateRequest('apiKeyCheck', null)

  async function touchIfStale (request: FastifyRequest, key: AuthenticatedKey) {
    if (key.lastUsedAt && Date.now() - key.lastUsedAt.getTime() <= TOUCH_INTERVAL_MS) return
    // Marked first, so concurrent requests of the same cached key do not all write.
    key.lastUsedAt = new Date()
    await touchApiKey(fastify.db, key.id).catch((err: unknown) => request.log.warn({ err }, 'could not update api key lastUsedAt'))
  }

  async function lookUp (request: FastifyRequest, hash: string) {
    const epoch = cache.currentEpoch
    const key = await findActiveApiKey(fastify.db, hash)
    if (!key) return
    cache.remember(hash, key, epoch)
    request.apiKey = key
    await touchIfStale(request, key)
  }

  fastify.decorate('resolveApiKey', async function resolveApiKey (request: FastifyRequest) {
    const secret = presentedKey(request)
    // Malformed keys never reach the database.
    if (!secret || !isWellFormedApiKey(secret)) return
    const hash = hashApiKey(secret)
    const cached = cache.recall(hash)
    if (!cached) return lookUp(request, hash)
    request.apiKey = cached.key
    request.apiKeyCheck = cached.check
    await touchIfStale(request, cached.key)
  })

  fastify.decorate('confirmApiKey', async function confirmApiKey (request: FastifyRequest) {
    const check = request.apiKeyCheck
    if (check === null) return
    request.apiKeyCheck = null
    if (cache.confirms(check)) return
    // A key was revoked meanwhile, or Redis did not answer: ask the database.
    request.apiKey = null
    await lookUp(request, check.hash)
  })

  fastify.decorate('requireApiKey', async function requireApiKey (request: FastifyRequest) {
    if (!request.apiKey) throw new ApiError(401, 'API_KEY_INVALID', 'The API key is missing, malformed, unknown or revoked.')
  })

  fastify.decorate('announceKeyRevocation', async function announceKeyRevocation () {
    cache.revokedHere()
    if (redis) await publishRevocation(redis, config.REDIS_PREFIX)
  })
}

export default fp(authPlugin, { name: 'auth', dependencies: ['db', 'redis'] })
