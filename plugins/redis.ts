// Redis (when REDIS_URL is set) as `fastify.redis`, shared by the rate limiter and
// the idempotency store, behind a circuit breaker `fastify.redisHealth`
// (domain/circuit-breaker.ts; its `state` is `closed`, `open` or `half-open`).
// A Redis that refuses connections fails a command at once (no offline queue);
// one that hangs (process stopped, socket open) costs a command COMMAND_TIMEOUT_MS.
// Either opens the breaker: from then on Redis is skipped (the rate limiter counts
// in memory, idempotent requests get 503) while a PING probes it in the background;
// the first answer closes it again. One warning per outage, one line on recovery.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import { CircuitBreaker } from '../domain/circuit-breaker.js'

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis | null
    /** Redis' breaker; null without REDIS_URL. */
    redisHealth: CircuitBreaker | null
  }
}

const COMMAND_TIMEOUT_MS = 500
/** How often a Redis known to be down is probed. */
const PROBE_INTERVAL_MS = 500

async function redisPlugin (fastify: FastifyInstance) {
  const url = fastify.config.REDIS_URL
  if (!url) {
    fastify.decorate('redis', null)
    fastify.decorate('redisHealth', null)
    return
  }
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: COMMAND_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A command that failed is never sent again behind the caller's back: a
    // claim the request gave up on must not land later on a new connection.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000)
  })
  const health = new CircuitBreaker({ name: 'redis', probeIntervalMs: PROBE_INTERVAL_MS, probe: () => redis.ping() })
  // The breaker reports outages; the client's own connection errors would repeat them.
  redis.on('error', (err) => { fastify.log.debug({ err }, 'redis connection error') })
  health.on('open', (err) => fastify.log.warn({ err }, 'redis unavailable: skipped (rate limits in memory, idempotent requests 503) until it answers again'))
  health.on('close', (downMs) => fastify.log.info({ downMs }, 'redis available again'))
  try {
    await redis.connect()
  } catch (err) {
    health.trip(err)
  }
  fastify.decorate('redis', redis)
  fastify.decorate('redisHealth', health)
  fastify.addHook('onClose', async () => {
    health.stop()
    redis.disconnect()
  })
}

export default fp(redisPlugin, { name: 'redis', dependencies: ['config'] })
