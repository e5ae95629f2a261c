// Prometheus metrics with prom-client, on a registry of this app's own,
// decorated as `fastify.metrics` so any plugin can add its families:
//   new Gauge({ name: '…', help: '…', registers: [fastify.metrics], collect () { this.set(…) } })
// Served as text at GET /metrics on METRICS_PORT (METRICS_HOST, default HOST)
// when that is set, never on the public port: a scraper needs no credentials
// and the load balancer never exposes it.
import { createServer, type Server } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { BreakerState } from '../domain/circuit-breaker.js'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry
  }
}

/** Seconds; from a cached read to a slow long poll. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

function requestMetrics (fastify: FastifyInstance, registry: Registry) {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by route pattern (never the raw URL), method and status.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry]
  })
  let inFlight = 0
  new Gauge({ // eslint-disable-line no-new
    name: 'http_requests_in_flight',
    help: 'Requests received and not yet answered or abandoned.',
    registers: [registry],
    collect () { this.set(inFlight) }
  })
  // The limiter is the only source of 429 (RATE_LIMIT): counted here, where every response passes.
  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 RATE_LIMIT, by caller: an API key, or a client IP without a valid key.',
    labelNames: ['caller'] as const,
    registers: [registry]
  })

  fastify.addHook('onRequest', async function countInFlight (_request, reply) {
    inFlight++
    // 'close' comes once whether the response finished or the client went away.
    reply.raw.once('close', () => { inFlight-- })
  })
  fastify.addHook('onResponse', async function observeRequest (request, reply) {
    const route = request.routeOptions.url ?? 'unmatched'
    duration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000)
    if (reply.statusCode === 429) refusals.inc({ caller: request.apiKey ? 'key' : 'ip' })
  })
}

function dependencyMetrics (fastify: FastifyInstance, registry: Registry) {
  const poolStats = fastify.dbConnection.poolStats
  if (poolStats) {
    new Gauge({ // eslint-disable-line no-new
      name: 'db_pool_connections',
      help: 'Postgres pool of this instance: connections in use, queries waiting for one, and the maximum ' +
        '(DB_POOL_MAX).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect () {
        const { max, inUse, waiting } = poolStats()
        this.set({ state: 'in_use' }, inUse)
        this.set({ state: 'waiting' }, waiting)
        this.set({ state: 'max' }, max)
      }
    })
  }
  const breakers: Array<[string, { readonly state: BreakerState } | null]> = [['database', fastify.dbHealth],
    ['redis', fastify.redisHealth]]
  new Gauge({ // eslint-disable-line no-new
    name: 'dependency_breaker_state',
    help: 'Circuit breaker in front of each dependency: 1 for the current state (closed: in use; open: ' +
      'skipped; half-open: being probed).',
    labelNames: ['dependency', 'state'] as const,
    registers: [registry],
    collect () {
      for (const [dependency, breaker] of breakers) {
        if (!breaker) continue
        for (const state of ['closed', 'open', 'half-open'] as const) {
          this.set({ dependency, state },
            breaker.state === state ? 1 : 0)
        }
      }
    }
  })
  const redis = fastify.redis
  if (redis) {
    new Gauge({ // eslint-disable-line no-new
      name: 'redis_connected',
      help: '1 while the Redis connection is ready, else 0.',
      registers: [registry],
      collect () { this.set(redis.status === 'ready' ? 1 : 0) }
    })
  }
}

function listen (server: Server, port: number, host: string) {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

async function metricsPlugin (fastify: FastifyInstance) {
  const registry = new Registry()
  // process_* (CPU, RSS, open files), nodejs_* (heap, GC, event-loop lag and its percentiles).
  collectDefaultMetrics({ register: registry })
  fastify.decorate('metrics', registry)
  requestMetrics(fastify, registry)
  dependencyMetrics(fastify, registry)

  const { METRICS_PORT: port, METRICS_HOST: host, HOST } = fastify.config
  if (port === undefined) return
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n')
      return
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        fastify.log.error({ err }, 'could not collect metrics')
        response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics collection failed.\n')
      }
    )
  })
  fastify.addHook('onReady', async () => { await listen(server, port, host ?? HOST) })
  fastify.addHook('onClose', async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
}

export default fp(metricsPlugin, { name: 'metrics', dependencies: ['config', 'db', 'redis'] })
