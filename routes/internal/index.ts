// The operator API under /internal/v1 (docs/api-rules.md, the operator API): what the marketplace
// around this service uses to manage shops, keys, rates, categories and to act as
// the buyer. Authenticated with the INTERNAL_TOKEN; without one it does not exist.
// The token is checked before anything else, unknown routes included (so the
// routes cannot be listed without it), and an IP that sent too many wrong tokens
// is refused with 429 until its window ends (so the token cannot be guessed).
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { FailureWindows } from '../../domain/failure-window.js'
import { ApiError } from '../../domain/errors.js'
import { handleNotFound } from '../../plugins/errors.js'
import idempotency from '../../plugins/idempotency.js'
import apiKeys from './api-keys/index.js'
import categories from './categories/index.js'
import claims from './claims/index.js'
import currencyRates from './currency-rates/index.js'
import ledger from './ledger/index.js'
import orders from './orders/index.js'
import portal from './portal/index.js'
import shops from './shops/index.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

/** Wrong tokens an IP may send per window before it is refused. */
export const MAX_FAILED_TOKENS = 10
const FAILED_TOKEN_WINDOW_MS = 60_000

export default async function operatorApi (fastify: FastifyInstance) {
  const token = fastify.config.INTERNAL_TOKEN
  if (!token) return
  const expected = digest(token)
  const failures = new FailureWindows(MAX_FAILED_TOKENS, FAILED_TOKEN_WINDOW_MS)

  fastify.addHook('onRequest', async function requireInternalToken (request: FastifyRequest, reply: FastifyReply) {
    const blockedMs = failures.blockedFor(request.ip)
    if (blockedMs > 0) {
      reply.header('retry-after', String(Math.ceil(blockedMs / 1000)))
      throw new ApiError('RATE_LIMIT', 'Too many wrong internal tokens from this address; retry later.')
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
    // Compare digests in constant time: the token's length and content stay secret.
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      failures.record(request.ip)
      throw new ApiError('API_KEY_INVALID', 'The internal token is missing or wrong.')
    }
  })
  // Unknown operator routes go through the token check too.
  fastify.setNotFoundHandler(handleNotFound)

  // The operator API's own OpenAPI document (plugins/openapi.ts), behind the token like the rest.
  fastify.get('/docs/json', { schema: { hide: true } }, async function operatorDocument () {
    return fastify.internalSwagger()
  })

  await fastify.register(shops, { prefix: '/shops' })
  await fastify.register(apiKeys, { prefix: '/shops' })
  await fastify.register(currencyRates, { prefix: '/shops' })
  await fastify.register(ledger, { prefix: '/shops' })
  await fastify.register(portal, { prefix: '/shops' })
  await fastify.register(categories, { prefix: '/categories' })
  await fastify.register(orders, { prefix: '/orders' })
  // The claims' actions honour Idempotency-Key, scoped to the operator token.
  await fastify.register(idempotency, { operatorScope: true })
  await fastify.register(claims)
}
