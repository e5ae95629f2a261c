// Per-key rate limiting with @fastify/rate-limit: windows in Redis when configured
// (shared by every instance), else in memory. Keyed by the authenticated key's
// id; callers without a valid key are limited per client IP, and once an IP has
// been refused, this instance stops looking its keys up in the database until
// that window resets (remembered in memory: no extra Redis call per request).
// Redis trouble fails open: behind Redis' breaker, windows move to memory
// (lib/rate-limit-store.ts) while it is down. Besides the `RateLimit-Limit/-Remaining/-Reset` trio,
// responses carry the current IETF draft pair `RateLimit-Policy` and `RateLimit`.
// Registering this plugin adds, for every route and the 404 handler of the scope:
// resolve the key (unless the IP is exhausted), count the request (the Redis
// script also returns the key revocation epoch), then confirm a key that came
// from the in-memory cache (see lib/api-key-cache.ts).
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LruMap } from 'toad-cache'
import { ApiError } from '../domain/errors.js'
import { redisRateLimitStore } from '../lib/rate-limit-store.js'

export function rateLimitKey (request: FastifyRequest): string {
  return request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`
}

/**
 * IPs refused for failed authentication, until their window resets; an LRU
 * bounded by count (toad-cache), so a flood of addresses cannot grow it.
 */
export class ExhaustedIps {
  private readonly until: LruMap<number>
  constructor (capacity = 10_000) {
    this.until = new LruMap<number>(capacity)
  }

  add (ip: string, untilMs: number) {
    this.until.set(ip, untilMs)
  }

  has (ip: string): boolean {
    const until = this.until.get(ip)
    if (until === undefined) return false
    if (until > Date.now()) return true
    this.until.delete(ip)
    return false
  }
}

/**
 * An onSend hook adding the IETF draft pair (RateLimit-Policy, RateLimit) next to the trio @fastify/rate-limit sets.
 */
export function draftRateLimitHeaders (windowSeconds: number) {
  return async function draftRateLimitHeaders (_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const limit = reply.getHeader('ratelimit-limit')
    if (limit !== undefined) {
      reply.header('ratelimit-policy', `"default";q=${limit};w=${windowSeconds}`)
      reply.header('ratelimit',
        `"default";r=${reply.getHeader('ratelimit-remaining')};t=${reply.getHeader('ratelimit-reset')}`)
    }
    return payload
  }
}

async function rateLimitPlugin (fastify: FastifyInstance) {
  const { config, redis, redisHealth } = fastify
  const windowSeconds = Math.ceil(config.RATE_LIMIT_WINDOW_MS / 1000)
  const exhaustedIps = new ExhaustedIps()

  await fastify.register(rateLimit, {
    // Applied below as scope-wide hooks, so the 404 handler is counted too.
    global: false,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    enableDraftSpec: true,
    keyGenerator: rateLimitKey,
    ...(redis && redisHealth
      ? {
          store: redisRateLimitStore(redis, redisHealth, config.REDIS_PREFIX,
            fastify.apiKeyCache)
        }
      : {}),
    skipOnError: true,
    errorResponseBuilder (request, context) {
      if (!request.apiKey) exhaustedIps.add(request.ip, Date.now() + context.ttl)
      return new ApiError('RATE_LIMIT', `Rate limit exceeded; retry in ${context.after}.`)
    }
  })

  fastify.addHook('onRequest', async function authenticateUnlessIpExhausted (request: FastifyRequest) {
    // An exhausted IP stays unauthenticated: the limiter below answers 429 without a lookup.
    if (!exhaustedIps.has(request.ip)) await fastify.resolveApiKey(request)
  })
  fastify.addHook('onRequest', fastify.rateLimit())
  fastify.addHook('onRequest', fastify.confirmApiKey)

  fastify.addHook('onSend', draftRateLimitHeaders(windowSeconds))
}

export default fp(rateLimitPlugin, { name: 'rate-limit', dependencies: ['auth', 'redis'] })
