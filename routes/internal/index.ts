// The operator API under /internal/v1 (CONTRACT section 8): what the marketplace
// around this service uses to manage shops, keys, rates, categories and to act as
// the buyer. Authenticated with the INTERNAL_TOKEN; without one it does not exist.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../../plugins/errors.js'
import apiKeys from './api-keys/index.js'
import categories from './categories/index.js'
import currencyRates from './currency-rates/index.js'
import ledger from './ledger/index.js'
import orders from './orders/index.js'
import shops from './shops/index.js'

const digest = (value: string) => createHash('sha256').update(value).digest()

export default async function operatorApi (fastify: FastifyInstance) {
  const token = fastify.config.INTERNAL_TOKEN
  if (!token) return
  const expected = digest(token)

  fastify.addHook('onRequest', async function requireInternalToken (request: FastifyRequest) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
    // Compare digests in constant time: the token's length and content stay secret.
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      throw new ApiError(401, 'API_KEY_INVALID', 'The internal token is missing or wrong.')
    }
  })

  await fastify.register(shops, { prefix: '/shops' })
  await fastify.register(apiKeys, { prefix: '/shops' })
  await fastify.register(currencyRates, { prefix: '/shops' })
  await fastify.register(ledger, { prefix: '/shops' })
  await fastify.register(categories, { prefix: '/categories' })
  await fastify.register(orders, { prefix: '/orders' })
}
