// The limit of the public routes that need no key (GET /media/…, GET /portal/enter):
// PUBLIC_RATE_LIMIT_MAX requests per client IP per RATE_LIMIT_WINDOW_MS, in the
// scope it is applied to, with windows named `windows` (each route its own, none
// shared with /v1's per-key or failed-authentication ones). Counted in Redis
// through its breaker like /v1's (lib/rate-limit-store.ts), so the instances share
// the windows and a Redis outage fails open; 429 RATE_LIMIT beyond, RateLimit-*
// headers on every answer (docs/security.md).
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../domain/errors.js'
import { redisRateLimitStore } from '../lib/rate-limit-store.js'
import { draftRateLimitHeaders } from './rate-limit.js'

export async function limitPerClientIp (scope: FastifyInstance, windows: string) {
  const { config, redis, redisHealth } = scope
  await scope.register(rateLimit, {
    global: false,
    max: config.PUBLIC_RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    enableDraftSpec: true,
    keyGenerator: (request) => `${windows}:${request.ip}`,
    ...(redis && redisHealth
      ? { store: redisRateLimitStore(redis, redisHealth, config.REDIS_PREFIX, scope.apiKeyCache) }
      : {}),
    skipOnError: true,
    errorResponseBuilder: (_request, context) => new ApiError('RATE_LIMIT', 'Rate limit exceeded; retry in ' +
      `${context.after}.`)
  })
  scope.addHook('onRequest', scope.rateLimit())
  scope.addHook('onSend', draftRateLimitHeaders(Math.ceil(config.RATE_LIMIT_WINDOW_MS / 1000)))
}
