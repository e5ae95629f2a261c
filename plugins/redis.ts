// Redis (when REDIS_URL is set) as `fastify.redis`, shared by the rate limiter and
// the idempotency store. Tuned to fail fast: no offline queue, short timeouts, so
// a dead Redis costs a request at most ~0.5 s; it reconnects on its own.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Redis } from 'ioredis'

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis | null
  }
}

async function redisPlugin (fastify: FastifyInstance) {
  const url = fastify.config.REDIS_URL
  if (!url) {
    fastify.decorate('redis', null)
    return
  }
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: 500,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000)
  })
  let lastWarning = 0
  redis.on('error', (err) => {
    // One warning per 10 s is enough while Redis is away.
    if (Date.now() - lastWarning > 10_000) {
      lastWarning = Date.now()
      fastify.log.warn({ err: { message: err.message } }, 'redis unavailable')
    }
  })
  try {
    await redis.connect()
  } catch (err) {
    fastify.log.warn({ err: { message: (err as Error).message } }, 'redis unavailable at start; continuing and retrying')
  }
  fastify.decorate('redis', redis)
  fastify.addHook('onClose', async () => { redis.disconnect() })
}

export default fp(redisPlugin, { name: 'redis', dependencies: ['config'] })
