// Per-key rate limiting with @fastify/rate-limit: windows in Redis when configured
// (shared by every instance), else in memory. Keyed by the authenticated key's
// id; callers without a valid key are limited per client IP, and an IP that has
// used up its window is not even looked up in the database any more. Redis
// trouble fails open. Besides the `RateLimit-Limit/-Remaining/-Reset` trio,
// responses carry the current IETF draft pair `RateLimit-Policy` and `RateLimit`.
// Registering this plugin adds, for every route and the 404 handler of the scope:
// resolve the key (unless the IP is exhausted), then count the request.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from './errors.js'

export function rateLimitKey (request: FastifyRequest): string {
  return request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`
}

async function rateLimitPlugin (fastify: FastifyInstance) {
  const { config, redis } = fastify
  const windowSeconds = Math.ceil(config.RATE_LIMIT_WINDOW_MS / 1000)

  await fastify.register(rateLimit, {
    // Applied below as scope-wide hooks, so the 404 handler is counted too.
    global: false,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    enableDraftSpec: true,
    keyGenerator: rateLimitKey,
    nameSpace: `${config.REDIS_PREFIX}rl:`,
    ...(redis ? { redis } : {}),
    skipOnError: true,
    errorResponseBuilder (_request, context) {
      return new ApiError(429, 'RATE_LIMIT', `Rate limit exceeded; retry in ${context.after}.`)
    }
  })

  // The same limiter and store; asked before the key is resolved, rateLimitKey gives the IP's window.
  const ipWindow = fastify.createRateLimit()
  fastify.addHook('onRequest', async function authenticateUnlessIpExhausted (request: FastifyRequest) {
    // Read, not counted: the limiter below counts the request once it knows whose it is.
    const ip = await ipWindow(request, { increment: false })
    if (ip.isAllowed || ip.remaining > 0) await fastify.resolveApiKey(request)
  })
  fastify.addHook('onRequest', fastify.rateLimit())

  fastify.addHook('onSend', async function draftRateLimitHeaders (_request, reply, payload) {
    const limit = reply.getHeader('ratelimit-limit')
    if (limit !== undefined) {
      reply.header('ratelimit-policy', `"default";q=${limit};w=${windowSeconds}`)
      reply.header('ratelimit', `"default";r=${reply.getHeader('ratelimit-remaining')};t=${reply.getHeader('ratelimit-reset')}`)
    }
    return payload
  })
}

export default fp(rateLimitPlugin, { name: 'rate-limit', dependencies: ['auth', 'redis'] })
