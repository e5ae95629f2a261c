// The limit of a portal session's changes (docs/portal.md): PORTAL_RATE_LIMIT_MAX
// per minute, counted per session by @fastify/rate-limit (in Redis through its
// breaker when REDIS_URL is set, so every instance shares the count; in this
// process otherwise), on every request but GET and HEAD once the session and its
// CSRF token are checked, but signing out. Beyond it: 429 with Retry-After, the page in the
// session's language (index.ts), nothing changed.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../../domain/errors.js'
import { redisRateLimitStore } from '../../lib/rate-limit-store.js'
import { draftRateLimitHeaders } from '../../plugins/rate-limit.js'
import { isPageRequest } from './session.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A change the limit does not count (signing out: always possible). */
    portalUncounted?: boolean
  }
}

export const PORTAL_CHANGE_WINDOW_MS = 60_000

export async function limitPortalChanges (scope: FastifyInstance) {
  const { config, redis, redisHealth } = scope
  await scope.register(rateLimit, {
    global: false,
    max: config.PORTAL_RATE_LIMIT_MAX,
    timeWindow: PORTAL_CHANGE_WINDOW_MS,
    enableDraftSpec: true,
    keyGenerator: (request) => `portal-session:${request.portalSession!.id}`,
    ...(redis && redisHealth
      ? { store: redisRateLimitStore(redis, redisHealth, config.REDIS_PREFIX, scope.apiKeyCache) }
      : {}),
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new ApiError('RATE_LIMIT', `Too many portal changes; retry in ${context.after}.`)
  })
  const countChange = scope.rateLimit()
  scope.addHook('onRequest', async function limitChange (request, reply) {
    if (isPageRequest(request) || request.routeOptions.config.portalUncounted) return
    await countChange.call(scope, request, reply)
  })
  scope.addHook('onSend', draftRateLimitHeaders(PORTAL_CHANGE_WINDOW_MS / 1000))
}
