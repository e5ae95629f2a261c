// Per-key rate limiting with @fastify/rate-limit: windows in Redis when configured
// (shared by every instance), else in memory. Keyed by the authenticated key's
// id; callers without a valid key are limited per client IP. Redis trouble fails
// open. Besides the `RateLimit-Limit/-Remaining/-Reset` trio, responses carry the
// current IETF draft pair `RateLimit-Policy` and `RateLimit`.
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
    global: true,
    hook: 'onRequest',
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    enableDraftSpec: true,
    keyGenerator: rateLimitKey,
    nameSpace: 'seller-api:rl:',
    ...(redis ? { redis } : {}),
    skipOnError: true,
    errorResponseBuilder (_request, context) {
      return new ApiError(429, 'RATE_LIMIT', `Rate limit exceeded; retry in ${context.after}.`)
    }
  })

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
