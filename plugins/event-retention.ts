// Event retention: deletes events older than EVENT_RETENTION_DAYS, once at
// start and then every hour, on every instance (pruneEvents is safe to run
// concurrently). A failed run is logged and retried at the next one.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { pruneEvents } from '../db/events/store.js'

const CLEANUP_INTERVAL_MS = 60 * 60_000

async function eventRetentionPlugin (fastify: FastifyInstance) {
  const { db, config, log } = fastify
  let running: Promise<void> | null = null

  function cleanUp () {
    running ??= pruneEvents(db, config.EVENT_RETENTION_DAYS)
      .catch((err: unknown) => log.warn({ err }, 'event retention cleanup failed; retrying at the next run'))
      .finally(() => { running = null })
  }

  const timer = setInterval(cleanUp, CLEANUP_INTERVAL_MS).unref()
  fastify.addHook('onReady', async () => { cleanUp() })
  fastify.addHook('onClose', async () => {
    clearInterval(timer)
    await running
  })
}

export default fp(eventRetentionPlugin, { name: 'event-retention', dependencies: ['config', 'db'] })
