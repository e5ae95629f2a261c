// Redis (when REDIS_URL or REDIS_SENTINELS is set) as `fastify.redis`, shared by the rate limiter and
// the idempotency store, behind a circuit breaker `fastify.redisHealth`
// (domain/circuit-breaker.ts; its `state` is `closed`, `open` or `half-open`).
// A Redis that refuses connections fails a command at once (no offline queue);
// one that hangs (process stopped, socket open) costs a command COMMAND_TIMEOUT_MS.
// Either opens the breaker: from then on Redis is skipped (the rate limiter counts
// in memory, idempotent requests get 503) while a PING probes it in the background;
// the first answer closes it again. One warning per outage, one line on recovery.
// Behind Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME) ioredis asks the
// Sentinels for the primary on every (re)connection and follows their
// +switch-master announcements, so a failover is an outage like any other:
// the breaker opens, and closes once the promoted replica answers
// (docs/deploying.md, "Redis Sentinel"). The probe also restarts a client that
// ioredis has given up on (see the probe below).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Redis, type RedisOptions } from 'ioredis'
import { CircuitBreaker } from '../domain/circuit-breaker.js'
import type { Config } from './config.js'

declare module 'fastify' {
  interface FastifyInstance {
    redis: Redis | null
    /** Redis' breaker; null without REDIS_URL / REDIS_SENTINELS. */
    redisHealth: CircuitBreaker | null
  }
}

export const COMMAND_TIMEOUT_MS = 500
/** How often a Redis known to be down is probed. */
const PROBE_INTERVAL_MS = 500

/** `host:port, host:port` as ioredis' sentinel list. */
export function parseSentinels (list: string): Array<{ host: string, port: number }> {
  return list.split(',').map((entry) => {
    const trimmed = entry.trim()
    const colon = trimmed.lastIndexOf(':')
    return { host: trimmed.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(trimmed.slice(colon + 1)) }
  })
}

/**
 * A client for the configured Redis, or null without one: REDIS_URL alone names
 * the server; with REDIS_SENTINELS the Sentinels name the primary, and REDIS_URL
 * (optional) still gives the credentials, the database number and, as rediss://,
 * TLS to the primary and the Sentinels.
 */
export function createRedisClient (
  config: Pick<Config, 'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_SENTINEL_NAME'>, options: RedisOptions
): Redis | null {
  const url = config.REDIS_URL
  if (!config.REDIS_SENTINELS || !config.REDIS_SENTINEL_NAME) return url ? new Redis(url, options) : null
  const tls = url?.startsWith('rediss://') ?? false
  const sentinelOptions: RedisOptions = {
    ...options,
    sentinels: parseSentinels(config.REDIS_SENTINELS),
    name: config.REDIS_SENTINEL_NAME,
    sentinelCommandTimeout: COMMAND_TIMEOUT_MS,
    // Keeps asking the Sentinels while none answers, as the data connection retries.
    sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    // Subscribes to the Sentinels' +switch-master: the client moves to the promoted
    // replica as soon as they announce it, not only when the old primary's socket dies.
    failoverDetector: true,
    ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {})
  }
  return url ? new Redis(url, sentinelOptions) : new Redis(sentinelOptions)
}

async function redisPlugin (fastify: FastifyInstance) {
  const redis = createRedisClient(fastify.config, {
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
  if (!redis) {
    fastify.decorate('redis', null)
    fastify.decorate('redisHealth', null)
    return
  }
  let closing = false
  const health = new CircuitBreaker({
    name: 'redis',
    probeIntervalMs: PROBE_INTERVAL_MS,
    probe: () => {
      // A client that gave up for good (status `end`) is started again, not waited on: ioredis
      // ends it when a Sentinel's failover announcement disconnects it while it is asking the
      // Sentinels for the primary, and it would then stay cut off from the promoted replica
      // until a restart. The connection is not awaited (behind Sentinels it can take as long
      // as they are away); the PING fails at once until it is ready.
      if (redis.status === 'end' && !closing) redis.connect().catch(() => {})
      return redis.ping()
    }
  })
  // The breaker reports outages; the client's own connection errors would repeat them.
  redis.on('error', (err) => { fastify.log.debug({ err }, 'redis connection error') })
  health.on('open', (err) => fastify.log.warn({ err }, 'redis unavailable: skipped (rate limits in memory, ' +
    'idempotent requests 503) until it answers again'))
  health.on('close', (downMs) => fastify.log.info({ downMs }, 'redis available again'))
  try {
    await redis.connect()
  } catch (err) {
    health.trip(err)
  }
  fastify.decorate('redis', redis)
  fastify.decorate('redisHealth', health)
  fastify.addHook('onClose', async () => {
    closing = true
    health.stop()
    redis.disconnect()
  })
}

export default fp(redisPlugin, { name: 'redis', dependencies: ['config'] })
