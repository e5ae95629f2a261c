// The public seller API under /v1. Every route here is authenticated by the
// shop's API key, rate limited per key, and may opt into idempotency.
import type { FastifyInstance } from 'fastify'
import { handleNotFound } from '../../plugins/errors.js'
import idempotency from '../../plugins/idempotency.js'
import rateLimit from '../../plugins/rate-limit.js'
import categories from './categories/index.js'
import chatRules from './chat-rules/index.js'
import claims from './claims/index.js'
import currencyRates from './currency-rates/index.js'
import deliveryEndpoint from './delivery-endpoint/index.js'
import deliveryRequests from './delivery-requests/index.js'
import events from './events/index.js'
import media from './media/index.js'
import messages from './messages/index.js'
import orders from './orders/index.js'
import products from './products/index.js'
import stats from './stats/index.js'
import stock from './stock/index.js'
import webhookEndpoints from './webhook-endpoints/index.js'

export default async function sellerApi (fastify: FastifyInstance) {
  // Order matters: resolve the key and count the request (per key, or per IP when
  // the key is bad), then refuse unauthenticated requests before reading a body.
  // The 404 handler of this scope goes through the same hooks.
  await fastify.register(rateLimit)
  fastify.addHook('preParsing', fastify.requireApiKey)
  await fastify.register(idempotency)
  fastify.setNotFoundHandler(handleNotFound)

  await fastify.register(products, { prefix: '/products' })
  await fastify.register(stock, { prefix: '/products' })
  await fastify.register(categories, { prefix: '/categories' })
  await fastify.register(currencyRates, { prefix: '/currency-rates' })
  await fastify.register(media, { prefix: '/media' })
  await fastify.register(orders, { prefix: '/orders' })
  await fastify.register(messages, { prefix: '/orders' })
  await fastify.register(events, { prefix: '/events' })
  await fastify.register(webhookEndpoints, { prefix: '/webhook-endpoints' })
  await fastify.register(deliveryEndpoint, { prefix: '/delivery-endpoint' })
  await fastify.register(deliveryRequests, { prefix: '/orders' })
  await fastify.register(claims, { prefix: '/claims' })
  await fastify.register(stats, { prefix: '/stats' })
  await fastify.register(chatRules, { prefix: '/chat-rules' })
}
