// The webhook worker that runs inside every instance: it claims due deliveries
// from the Postgres queue (db/webhook-queue.ts) and attempts them, with at most
// `concurrency` attempts at once and at most `endpointConcurrency` per endpoint
// (one while an endpoint is failing), so a slow or dead endpoint holds a few
// places and never the others' deliveries. No database connection is held
// while an attempt waits for its answer. It claims again right after attempts
// end (those ending within 10 ms together) or wake() is called, and otherwise
// polls every `pollIntervalMs`.
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/client.js'
import { claimDeliveries, recordAttempt, releaseDeliveries, type AttemptOutcome, type ClaimedDelivery } from '../db/webhook-queue.js'
import { webhookBody } from './body.js'
import { attemptDeliveryRequest, type DeliveryRequestOptions } from './delivery-request.js'
import type { Sender } from './sender.js'

export interface WorkerOptions {
  db: Db
  sender: Sender
  log: FastifyBaseLogger
  concurrency: number
  endpointConcurrency: number
  pollIntervalMs: number
  /** How long a claim holds a delivery: longer than any attempt can take. */
  leaseMs: number
  /** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: number[]
  /** How long stop() waits for attempts in flight before cutting them short. */
  drainMs: number
  /** Requests to the shop's delivery endpoint (docs/delivery-endpoint.md), claimed from the same queue. */
  deliveryRequests: DeliveryRequestOptions
}

export interface WebhookWorker {
  start: () => void
  /** Looks for due deliveries now rather than at the next poll (e.g. after a commit that made some). */
  wake: () => void
  /**
   * Stops claiming and waits up to `drainMs` for the attempts in flight; the
   * ones still running are cut short and their deliveries handed back, due now.
   */
  stop: () => Promise<void>
}

/** While the database is away, one error log per this many ms. */
const FAILURE_LOG_INTERVAL_MS = 10_000
/**
 * Attempts that end within this many ms share one claim for their places: at a
 * high delivery rate, one claim per ended attempt would cost more than the attempts.
 */
const REFILL_DELAY_MS = 10

export function createWebhookWorker (options: WorkerOptions): WebhookWorker {
  const { db, sender, log } = options
  const inFlight = new Map<string, number>()
  const attempts = new Set<Promise<void>>()
  const cutShort = new AbortController()
  let running = false
  let claiming: Promise<void> | null = null
  let claimAgain = false
  let pollTimer: NodeJS.Timeout | undefined
  let refillTimer: NodeJS.Timeout | undefined
  let lastFailureLog = 0

  function refillSoon (): void {
    refillTimer ??= setTimeout(() => {
      refillTimer = undefined
      wake()
    }, REFILL_DELAY_MS)
  }

  function wake (): void {
    if (!running) return
    if (claiming) {
      claimAgain = true
      return
    }
    clearTimeout(pollTimer)
    claiming = claimWhileDue().finally(() => {
      claiming = null
      if (!running) return
      // A wake that came as the last claim was finishing is not lost.
      if (claimAgain) wake()
      else pollTimer = setTimeout(wake, options.pollIntervalMs)
    })
  }

  async function claimWhileDue (): Promise<void> {
    try {
      do {
        claimAgain = false
        const free = options.concurrency - attempts.size
        // Every place is taken: the end of an attempt wakes the worker.
        if (free <= 0) return
        const claimed = await claimDeliveries(db, {
          limit: free,
          endpointLimit: options.endpointConcurrency,
          inFlight,
          leaseMs: options.leaseMs
        })
        if (!running) {
          await releaseDeliveries(db, claimed)
          return
        }
        for (const delivery of claimed) run(delivery)
        // A full claim: more may be due.
        if (claimed.length === free) claimAgain = true
      } while (claimAgain && running)
    } catch (err) {
      if (Date.now() - lastFailureLog > FAILURE_LOG_INTERVAL_MS) {
        lastFailureLog = Date.now()
        log.error({ err }, 'could not claim webhook deliveries; retrying at the next poll')
      }
    }
  }

  function run (delivery: ClaimedDelivery): void {
    const endpoint = delivery.endpointId
    inFlight.set(endpoint, (inFlight.get(endpoint) ?? 0) + 1)
    const attempt = attemptDelivery(delivery).finally(() => {
      const left = inFlight.get(endpoint)! - 1
      if (left === 0) inFlight.delete(endpoint)
      else inFlight.set(endpoint, left)
      attempts.delete(attempt)
      refillSoon()
    })
    attempts.add(attempt)
  }

  async function attemptDelivery (delivery: ClaimedDelivery): Promise<void> {
    if (delivery.kind === 'delivery_request') return attemptRequest(delivery)
    try {
      const outcome = await send(delivery)
      // Cut short by stop(): hand the delivery back rather than count a failure.
      if (cutShort.signal.aborted && !outcome.ok) await releaseDeliveries(db, [delivery])
      else await recordAttempt(db, delivery, outcome, options.retrySchedule)
      log.debug({ deliveryId: delivery.id, attempt: delivery.attempts, ok: outcome.ok, statusCode: outcome.statusCode }, 'webhook attempt')
    } catch (err) {
      log.error({ err, deliveryId: delivery.id }, 'could not record a webhook attempt; it is made again when its lease runs out')
    }
  }

  async function attemptRequest (delivery: ClaimedDelivery): Promise<void> {
    try {
      const sent = await attemptDeliveryRequest(db, sender, delivery, options.deliveryRequests, cutShort.signal)
      // Cut short by stop() before an answer: hand the request back rather than count a failure.
      if (sent && cutShort.signal.aborted && sent.statusCode === null) await releaseDeliveries(db, [delivery])
      log.debug({ deliveryRequestId: delivery.id, orderId: delivery.orderId, attempt: delivery.attempts, statusCode: sent?.statusCode }, 'delivery request attempt')
    } catch (err) {
      log.error({ err, deliveryRequestId: delivery.id }, 'could not record a delivery request attempt; it is made again when its lease runs out')
    }
  }

  async function send (delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    let body: string
    try {
      body = webhookBody(delivery.eventType, delivery.timestamp, delivery.data)
    } catch (err) {
      log.error({ err, deliveryId: delivery.id }, 'webhook body could not be serialized')
      return { ok: false, statusCode: null, error: 'Not sent: the event could not be serialized.' }
    }
    return sender.send({ url: delivery.url, webhookId: delivery.webhookId, body, secrets: delivery.secrets, signal: cutShort.signal })
  }

  return {
    start () {
      if (running) return
      running = true
      wake()
    },
    wake,
    async stop () {
      running = false
      clearTimeout(pollTimer)
      clearTimeout(refillTimer)
      await claiming
      let drainTimer: NodeJS.Timeout | undefined
      const drained = await Promise.race([
        Promise.allSettled([...attempts]).then(() => true),
        new Promise<boolean>((resolve) => { drainTimer = setTimeout(resolve, options.drainMs, false) })
      ])
      clearTimeout(drainTimer)
      if (!drained) {
        cutShort.abort()
        await Promise.allSettled([...attempts])
      }
      await sender.close()
    }
  }
}
