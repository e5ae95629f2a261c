// Seller API authentication: `Authorization: Bearer <key>` (wins when both are
// sent) or `X-API-Key: <key>`. The key is resolved in onRequest without failing,
// so the rate limiter can count unauthenticated callers per IP; the request is
// refused with 401 right after the limiter (preParsing), before any body is read.
// Resolved keys are cached in memory (lib/api-key-cache.ts) while this instance
// hears revocation notices from Postgres; with Redis, a cached key is also
// confirmed by the rate limiter's reply (confirmApiKey) or looked up again.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { setImmediate as nextTurn } from 'node:timers/promises'
import {
  findActiveApiKey, KEY_REVOCATIONS_CHANNEL, touchApiKey, type ApiKeyRow, type AuthenticatedKey
} from '../db/shops/api-keys.js'
import { revokeApiKeyNotifying } from '../services/shops/api-keys.js'
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js'
import { ApiKeyCache, publishRevocation, type PendingKeyCheck } from '../lib/api-key-cache.js'
import { ApiError } from '../domain/errors.js'

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
    /** Whether the request's key is still active (a held request re-checking after a wait). */
    apiKeyStillActive: (request: FastifyRequest) => Promise<boolean>
    /**
     * Revokes a key (db/shops/api-keys.ts: the notice to every instance goes with the
     * commit) and answers once this instance has heard that notice, so the others
     * (which hear it at the same moment) have too; with Redis it also replaces the
     * epoch. Once committed, nothing fails it: the revocation stands whether or
     * not Redis answers.
     */
    revokeApiKeyEverywhere: (shopId: string, keyId: string) => Promise<ApiKeyRow | undefined>
  }
}

/** How long a revoke waits to hear its own notice (it is sent at commit, so this is only a bound). */
const NOTICE_WAIT_MS = 2000

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
  const cache = new ApiKeyCache(redis ? 'shared' : 'database')
  fastify.decorate('apiKeyCache', cache)
  let listened = false
  /** Revokes waiting to hear their notice, by shop. */
  const noticeWaiters = new Map<string, Set<() => void>>()
  function heard (shopId: string) {
    cache.revoked()
    for (const done of noticeWaiters.get(shopId) ?? []) done()
    noticeWaiters.delete(shopId)
  }
  function hearing (shopId: string): { heard: Promise<void>, cancel: () => void } {
    let waiters = noticeWaiters.get(shopId)
    if (!waiters) noticeWaiters.set(shopId, waiters = new Set())
    let done!: () => void
    const heard = new Promise<void>((resolve) => { done = resolve })
    waiters.add(done)
    const timer = setTimeout(done, NOTICE_WAIT_MS)
    const cancel = () => {
      clearTimeout(timer)
      waiters.delete(done)
      if (waiters.size === 0 && noticeWaiters.get(shopId) === waiters) noticeWaiters.delete(shopId)
    }
    return { heard: heard.then(cancel), cancel }
  }
  const unlisten = await fastify.dbConnection.listen(KEY_REVOCATIONS_CHANNEL, heard, () => {
    if (listened) fastify.log.info('revocation listener reconnected: caching api keys again')
    listened = true
    cache.listenerUp()
  }, () => {
    fastify.log.warn('revocation listener disconnected: every api key is looked up in the database until it is back')
    cache.listenerDown()
  })
  fastify.addHook('onClose', async () => {
    await unlisten().catch((err: unknown) => fastify.log.warn({ err }, 'could not stop the revocation listener'))
  })
  fastify.decorateRequest('apiKey', null)
  fastify.decorateRequest('apiKeyCheck', null)

  async function touchIfStale (request: FastifyRequest, key: AuthenticatedKey) {
    if (key.lastUsedAt && Date.now() - key.lastUsedAt.getTime() <= TOUCH_INTERVAL_MS) return
    // Marked first, so concurrent requests of the same cached key do not all write.
    key.lastUsedAt = new Date()
    await touchApiKey(fastify.db,
      key.id).catch((err: unknown) => request.log.warn({ err }, 'could not update api key lastUsedAt'))
  }

  async function lookUp (request: FastifyRequest, hash: string) {
    const mark = cache.mark
    const key = await findActiveApiKey(fastify.db, hash)
    if (!key) return
    cache.remember(hash, key, mark)
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
    if (!request.apiKey) throw new ApiError('API_KEY_INVALID')
  })

  fastify.decorate('apiKeyStillActive', async function apiKeyStillActive (request: FastifyRequest) {
    const secret = presentedKey(request)
    if (!request.apiKey || !secret) return false
    const hash = hashApiKey(secret)
    if (cache.holds(hash)) return true
    const mark = cache.mark
    const key = await findActiveApiKey(fastify.db, hash)
    if (key) cache.remember(hash, key, mark)
    return key !== undefined
  })

  fastify.decorate('revokeApiKeyEverywhere', async function revokeApiKeyEverywhere (shopId: string, keyId: string) {
    // Waiting starts before the commit: the notice may arrive before the commit's own answer.
    const notice = hearing(shopId)
    let apiKey: ApiKeyRow | undefined
    try {
      apiKey = await revokeApiKeyNotifying(fastify, shopId, keyId)
    } finally {
      if (!apiKey) notice.cancel()
    }
    if (!apiKey) return undefined
    cache.revoked()
    if (redis) {
      await publishRevocation(redis, config.REDIS_PREFIX).catch((err: unknown) => {
        // Every instance still hears the revocation's notice from Postgres.
        fastify.log.warn({ err }, 'could not replace the api key revocation epoch in redis (instances hear ' +
          'the notice from postgres)')
      })
    }
    if (cache.hearsNotices) {
      await notice.heard
      // The other instances' listeners got the notice in the same moment; let this turn's I/O be read.
      await nextTurn()
    } else {
      notice.cancel()
    }
    return apiKey
  })
}

export default fp(authPlugin, { name: 'auth', dependencies: ['db', 'redis'] })
