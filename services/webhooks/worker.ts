// The webhook worker that runs inside every instance: it leases due sends
// from the Postgres queue (db/webhooks/queue.ts) and attempts them, with at most
// `concurrency` attempts at once and at most `endpointConcurrency` per endpoint
// (one while an endpoint is failing), so a slow or dead endpoint holds a few
// places and never the others' sends. No database connection is held
// while an attempt waits for its answer. It leases again right after attempts
// end (those ending within 10 ms together) or wake() is called, and otherwise
// polls every `pollIntervalMs`.
import { failureText } from '../../domain/attempt-failures.js'
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/core/client.js'
import {
  leaseSends, recordAttempt, releaseSends, type AttemptOutcome, type LeasedSend
} from '../../db/webhooks/queue.js'
import { revealEventData } from '../../domain/delivered-values.js'
import { StockKeyError, type StockCipher } from '../../domain/stock-cipher.js'
import { webhookBody } from './body.js'
import { attemptDeliveryRequest, type DeliveryRequestOptions } from './delivery-request.js'
import type { Sender } from './sender.js'

export interface WorkerOptions {
  db: Db
  sender: Sender
  /** Opens the sealed values of the orders the events carry (domain/delivered-values.ts); null: no key. */
  cipher: StockCipher | null
  log: FastifyBaseLogger
  concurrency: number
  endpointConcurrency: number
  pollIntervalMs: number
  /** How long a lease holds a send: longer than any attempt can take. */
  leaseMs: number
  /** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: number[]
  /** How long stop() waits for attempts in flight before cutting them short. */
  drainMs: number
  /** Requests to the shop's delivery endpoint (docs/delivery-endpoint.md), leased from the same queue. */
  deliveryRequests: DeliveryRequestOptions
}

export interface WebhookWorker {
  start: () => void
  /** Looks for due sends now rather than at the next poll (e.g. after a commit that made some). */
  wake: () => void
  /**
   * Stops leasing and waits up to `drainMs` for the attempts in flight; the
   * ones still running are cut short and their sends handed back, due now.
   */
  stop: () => Promise<void>
}

/** While the database is away, one error log per this many ms. */
const FAILURE_LOG_INTERVAL_MS = 10_000
/**
 * Attempts that end within this many ms share one lease for their places: at a
 * high send rate, one lease per ended attempt would cost more than the attempts.
 */
const REFILL_DELAY_MS = 10

export function createWebhookWorker (options: WorkerOptions): WebhookWorker {
  const { db, sender, log } = options
  const inFlight = new Map<string, number>()
  const attempts = new Set<Promise<void>>()
  const cutShort = new AbortController()
  let running = false
  let leasing: Promise<void> | null = null
  let leaseAgain = false
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
    if (leasing) {
      leaseAgain = true
      return
    }
    clearTimeout(pollTimer)
    leasing = leaseWhileDue().finally(() => {
      leasing = null
      if (!running) return
      // A wake that came as the last lease was finishing is not lost.
      if (leaseAgain) wake()
      else pollTimer = setTimeout(wake, options.pollIntervalMs)
    })
  }

  async function leaseWhileDue (): Promise<void> {
    try {
      do {
        leaseAgain = false
        const free = options.concurrency - attempts.size
        // Every place is taken: the end of an attempt wakes the worker.
        if (free <= 0) return
        const leased = await leaseSends(db, {
          limit: free,
          endpointLimit: options.endpointConcurrency,
          inFlight,
          leaseMs: options.leaseMs
        })
        if (!running) {
          await releaseSends(db, leased)
          return
        }
        for (const item of leased) run(item)
        // A full lease: more may be due.
        if (leased.length === free) leaseAgain = true
      } while (leaseAgain && running)
    } catch (err) {
      if (Date.now() - lastFailureLog > FAILURE_LOG_INTERVAL_MS) {
        lastFailureLog = Date.now()
        log.error({ err }, 'could not lease webhook sends; retrying at the next poll')
      }
    }
  }

  function run (item: LeasedSend): void {
    const endpoint = item.endpointId
    inFlight.set(endpoint, (inFlight.get(endpoint) ?? 0) + 1)
    const attempt = attemptLeased(item).finally(() => {
      const left = inFlight.get(endpoint)! - 1
      if (left === 0) inFlight.delete(endpoint)
      else inFlight.set(endpoint, left)
      attempts.delete(attempt)
      refillSoon()
    })
    attempts.add(attempt)
  }

  async function attemptLeased (item: LeasedSend): Promise<void> {
    if (item.kind === 'delivery_request') return attemptRequest(item)
    try {
      const outcome = await send(item)
      // Cut short by stop(): hand the send back rather than count a failure.
      if (cutShort.signal.aborted && !outcome.ok) await releaseSends(db, [item])
      else await recordAttempt(db, item, outcome, options.retrySchedule)
      log.debug({ deliveryId: item.id, attempt: item.attempts, ok: outcome.ok, statusCode: outcome.statusCode },
        'webhook attempt')
    } catch (err) {
      log.error({ err, deliveryId: item.id }, 'could not record a webhook attempt; it is made again when its ' +
        'lease runs out')
    }
  }

  async function attemptRequest (item: LeasedSend): Promise<void> {
    try {
      const sent = await attemptDeliveryRequest(db, sender, item, options.deliveryRequests, cutShort.signal)
      // Cut short by stop() before an answer: hand the request back rather than count a failure.
      if (sent && cutShort.signal.aborted && sent.statusCode === null) await releaseSends(db, [item])
      log.debug({
        deliveryRequestId: item.id,
        orderId: item.orderId,
        attempt: item.attempts,
        statusCode: sent?.statusCode
      }, 'delivery request attempt')
    } catch (err) {
      log.error({ err, deliveryRequestId: item.id }, 'could not record a delivery request attempt; it is made ' +
        'again when its lease runs out')
    }
  }

  async function send (item: LeasedSend): Promise<AttemptOutcome> {
    let body: string
    try {
      body = webhookBody(item.eventType, item.timestamp, revealEventData(item.data, options.cipher))
    } catch (err) {
      if (err instanceof StockKeyError) {
        const message = 'webhook body: the order\'s values cannot be decrypted'
        log.error({ err: { message: err.message }, deliveryId: item.id }, message)
        const failure = { kind: 'cannotDecrypt', message: err.message } as const
        return { ok: false, statusCode: null, error: failureText(failure), failure }
      }
      log.error({ err, deliveryId: item.id }, 'webhook body could not be serialized')
      const failure = { kind: 'notSerialized' } as const
      return { ok: false, statusCode: null, error: failureText(failure), failure }
    }
    return sender.send({
      url: item.url,
      webhookId: item.webhookId,
      body,
      secrets: item.secrets,
      signal: cutShort.signal
    })
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
      await leasing
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
