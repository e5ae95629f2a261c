// Load shedding with @fastify/under-pressure: while the event loop lags or the
// heap / RSS is over the configured limits, requests are refused at once with
// 503 SERVICE_UNAVAILABLE and Retry-After, before any key lookup or query, so
// an overloaded instance recovers instead of queueing. Routes declared with
// `config: { shedUnderPressure: false }` (health and readiness) still answer,
// and `fastify.pressure()` tells /readyz what is over its limit.
import underPressure from '@fastify/under-pressure'
import { Gauge } from 'prom-client'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../domain/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: answer this route even under pressure. */
    shedUnderPressure?: boolean
  }
  interface FastifyInstance {
    /** What is over its limit right now, in words, or null. */
    pressure: () => string | null
  }
}

const MIB = 1024 * 1024
/** Seconds; under-pressure samples every second, so pressure clears (or not) quickly. */
const RETRY_AFTER_S = 5

async function loadSheddingPlugin (fastify: FastifyInstance) {
  const { config } = fastify
  const maxEventLoopDelay = config.PRESSURE_MAX_EVENT_LOOP_DELAY_MS
  const maxHeapUsedBytes = config.PRESSURE_MAX_HEAP_USED_MB * MIB
  const maxRssBytes = config.PRESSURE_MAX_RSS_MB * MIB

  await fastify.register(underPressure, {
    maxEventLoopDelay,
    maxHeapUsedBytes,
    maxRssBytes,
    async pressureHandler (request: FastifyRequest, reply: FastifyReply) {
      if (request.routeOptions.config.shedUnderPressure === false) return
      reply.header('retry-after', String(RETRY_AFTER_S))
      throw new ApiError('SERVICE_UNAVAILABLE', 'This instance is overloaded; retry shortly.')
    }
  })

  fastify.decorate('pressure', function pressure (): string | null {
    const { eventLoopDelay, heapUsed, rssBytes } = fastify.memoryUsage()
    const over: string[] = []
    if (maxEventLoopDelay > 0 && eventLoopDelay > maxEventLoopDelay) {
      over.push('event loop delay ' +
      `${Math.round(eventLoopDelay)} ms over ${maxEventLoopDelay} ms`)
    }
    if (maxHeapUsedBytes > 0 && heapUsed > maxHeapUsedBytes) {
      over.push(`heap ${Math.round(heapUsed / MIB)} MiB over ${config.PRESSURE_MAX_HEAP_USED_MB} MiB`)
    }
    if (maxRssBytes > 0 && rssBytes > maxRssBytes) {
      over.push(`RSS ${Math.round(rssBytes / MIB)} MiB over ${config.PRESSURE_MAX_RSS_MB} MiB`)
    }
    return over.length > 0 ? over.join(', ') : null
  })

  new Gauge({ // eslint-disable-line no-new
    name: 'load_shedding_active',
    help: '1 while this instance refuses requests because it is over a PRESSURE_* limit, else 0.',
    registers: [fastify.metrics],
    collect () { this.set(fastify.pressure() ? 1 : 0) }
  })
}

export default fp(loadSheddingPlugin, { name: 'load-shedding', dependencies: ['config', 'errors', 'metrics'] })
