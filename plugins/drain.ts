// The drain before a shutdown (docs/deploying-rolling.md), as `fastify.drain`.
// server.ts starts it on the first SIGTERM / SIGINT and closes the app when it
// ends. While it lasts (SHUTDOWN_DRAIN_MS), /readyz answers 503 so the load
// balancer stops sending new requests here, every answer carries
// `Connection: close` so keep-alive clients reconnect (through the balancer, to
// another instance), and held long polls of the events feed are answered at once
// with what they have. Everything else is served as usual.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain
  }
}

export interface Drain {
  /** True from the start of the drain on (and through the close that follows). */
  readonly draining: boolean
  /** Starts draining; resolves when SHUTDOWN_DRAIN_MS have passed. A second call resolves with the first. */
  start: () => Promise<void>
}

async function drainPlugin (fastify: FastifyInstance) {
  const drainMs = fastify.config.SHUTDOWN_DRAIN_MS
  let draining = false
  let drained: Promise<void> | null = null

  fastify.decorate('drain', {
    get draining () { return draining },
    start () {
      if (drained) return drained
      draining = true
      fastify.eventWakeups.closeAll()
      fastify.log.info({ drainMs }, 'draining: not ready, keep-alive connections told to close')
      drained = new Promise<void>((resolve) => setTimeout(resolve, drainMs))
      return drained
    }
  } satisfies Drain)

  fastify.addHook('onSend', async function closeConnectionWhileDraining (_request, reply) {
    if (draining) reply.header('connection', 'close')
  })
}

export default fp(drainPlugin, { name: 'drain', dependencies: ['config', 'event-wakeups'] })
