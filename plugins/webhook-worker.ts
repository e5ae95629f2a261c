// The webhook worker of this instance (services/webhooks/worker.ts), as
// `fastify.webhookWorker`: started when the app is ready, stopped when it closes
// (before the database, which this plugin depends on, is closed). Every
// committed event's NOTIFY (db/events/store.ts) wakes it, so new sends go out at
// once; the poll covers retries that come due and a lost notification.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { EVENTS_CHANNEL } from '../db/events/store.js'
import { parseRetrySchedule } from '../domain/webhook-retry.js'
import { createSender, type Sender } from '../services/webhooks/sender.js'
import { deliveryRequestMetrics } from '../services/webhooks/delivery-request-metrics.js'
import { createWebhookWorker } from '../services/webhooks/worker.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhookWorker: {
      /** Look for due sends now instead of at the next poll. */
      wake: () => void
      /** The worker's sender (its address rules and signer), for the delivery endpoint's test call. */
      sender: Sender
    }
  }
}

/** A lease outlasts the longest attempt (the timeout) by this much. */
const LEASE_MARGIN_MS = 5000
/** How long closing waits for attempts in flight before cutting them short. */
const DRAIN_MS = 3000

async function webhookWorkerPlugin (fastify: FastifyInstance) {
  const { config } = fastify
  const sender = createSender({
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS
  })
  const worker = createWebhookWorker({
    db: fastify.db,
    sender,
    cipher: fastify.stockCipher,
    log: fastify.log.child({ module: 'webhooks' }),
    concurrency: config.WEBHOOK_CONCURRENCY,
    endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    leaseMs: Math.max(config.WEBHOOK_TIMEOUT_MS, config.DELIVERY_TIMEOUT_MS) + LEASE_MARGIN_MS,
    retrySchedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE),
    drainMs: DRAIN_MS,
    deliveryRequests: {
      timeoutMs: config.DELIVERY_TIMEOUT_MS,
      retrySchedule: parseRetrySchedule(config.DELIVERY_RETRY_SCHEDULE),
      cipher: fastify.stockCipher,
      observe: deliveryRequestMetrics(fastify.metrics)
    }
  })
  fastify.decorate('webhookWorker', { wake: worker.wake, sender })
  fastify.addHook('onReady', async () => { worker.start() })
  const unlisten = await fastify.dbConnection.listen(EVENTS_CHANNEL, () => worker.wake(), () => worker.wake())
  fastify.addHook('onClose', async () => {
    await unlisten().catch((err: unknown) => fastify.log.warn({ err }, 'could not stop the webhook worker\'s ' +
      'event listener'))
    await worker.stop()
  })
}

export default fp(webhookWorkerPlugin,
  { name: 'webhook-worker', dependencies: ['config', 'db', 'metrics', 'stock-cipher'] })
