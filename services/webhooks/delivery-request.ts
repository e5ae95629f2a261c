// One attempt of a delivery request (docs/delivery-endpoint.md), made by the
// webhook worker (services/webhooks/worker.ts) for a leased row of kind
// `delivery_request`: the same signed POST as a webhook through the same sender,
// but with DELIVERY_TIMEOUT_MS, its answer read, judged (domain/delivery-answer.ts)
// and recorded with what it led to, in one transaction (recordRequestAttempt).
import type { Db } from '../../db/core/client.js'
import {
  lockRequest, logRequestAttempt, requestStillWanted, type AnswerOfAttempt, type RequestOutcome
} from '../../db/delivery-endpoint/requests.js'
import { appendDeliveryFailedEvents, fulfilFromEndpoint } from '../../db/orders/fulfilment.js'
import { findOrder } from '../../db/orders/orders.js'
import { retryDelayMs } from '../../domain/webhook-retry.js'
import type { LeasedSend } from '../../db/webhooks/queue.js'
import { judgeAnswer } from '../../domain/delivery-answer.js'
import { failureText } from '../../domain/attempt-failures.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import { webhookBody } from './body.js'
import type { Sender, SentAttempt } from './sender.js'

export interface DeliveryRequestOptions {
  /** DELIVERY_TIMEOUT_MS. */
  timeoutMs: number
  /** Seconds between attempts (DELIVERY_RETRY_SCHEDULE). */
  retrySchedule: number[]
  /** Seals the values of an answer before they are stored (db/orders/row.ts); null: no key. */
  cipher: StockCipher | null
  /** Told of each attempt's outcome, and of the time from purchase to delivery. */
  observe?: (outcome: RequestOutcome | 'not_sent', sincePurchaseMs?: number) => void
}

/**
 * Attempts the request. Returns the attempt as sent (null when it was not sent
 * because the order had left `paid`), and records it unless `cutShort` says the
 * instance is stopping and nothing came back: the caller then hands it back.
 */
export async function attemptDeliveryRequest (
  db: Db, sender: Sender, leased: LeasedSend, options: DeliveryRequestOptions, cutShort: AbortSignal
): Promise<SentAttempt | null> {
  if (!await requestStillWanted(db, leased)) {
    options.observe?.('not_sent')
    return null
  }
  const sent = await sender.send({
    url: leased.url,
    webhookId: leased.webhookId,
    body: webhookBody(leased.eventType, leased.timestamp, leased.data),
    secrets: leased.secrets,
    signal: cutShort,
    answer: { timeoutMs: options.timeoutMs }
  })
  if (cutShort.aborted && sent.statusCode === null) return sent
  const judged = judgeAnswer(sent)
  const { outcome, sincePurchaseMs } = await recordRequestAttempt(db, options.cipher, leased, {
    statusCode: sent.statusCode,
    durationMs: sent.durationMs,
    values: judged.ok ? judged.values : null,
    failure: judged.ok
      ? null
      : sent.statusCode === null && sent.failure ? sent.failure : { kind: 'answer', problems: judged.findings },
    final: !judged.ok && judged.final
  }, options.retrySchedule)
  options.observe?.(outcome, sincePurchaseMs)
  return sent
}

/**
 * Records one attempt of a delivery request and what it led to, in one
 * transaction: a valid answer fulfils the order (with its order.delivered
 * event) while the request is pending and the order paid, else it is
 * `discarded` (order no longer paid) or not used (the request had ended); a
 * failed attempt is tried again after the schedule, or ends the request
 * `failed` with order.delivery_failed. Returns the outcome and, on fulfilment,
 * how long after the purchase it came. The answer's values are stored sealed
 * by `cipher` (db/orders/row.ts).
 */
export async function recordRequestAttempt (
  db: Db, cipher: StockCipher | null, leased: LeasedSend, answer: AnswerOfAttempt, retrySchedule: number[]
): Promise<{ outcome: RequestOutcome, sincePurchaseMs?: number }> {
  return db.transaction(async (tx) => {
    const request = await lockRequest(tx, leased.id)
    if (!request) return { outcome: 'not_used' as const }
    const leaseHeld = request.leaseToken === leased.leaseToken
    if (answer.values !== null) {
      if (request.status !== 'pending') {
        await logRequestAttempt(tx, leased.id, answer, { kind: 'answerNotUsed', requestStatus: request.status }, null)
        return { outcome: 'not_used' as const }
      }
      const fulfilled = await fulfilFromEndpoint(tx, cipher, request.shopId, request.orderId, answer.values)
      if (fulfilled) {
        await logRequestAttempt(tx, leased.id, answer, null, { status: 'succeeded', endLease: true })
        return { outcome: 'succeeded' as const, sincePurchaseMs: fulfilled.sincePurchaseMs }
      }
      const order = await findOrder(tx, request.orderId, null)
      const why = { kind: 'notPaid', orderStatus: order?.status ?? null, sent: true } as const
      await logRequestAttempt(tx, leased.id, answer, why, { status: 'discarded', endLease: true })
      return { outcome: 'discarded' as const }
    }
    // A failure decides the schedule only for the lease that holds the request.
    if (request.status !== 'pending' || !leaseHeld) {
      await logRequestAttempt(tx, leased.id, answer, answer.failure, null)
      return { outcome: 'not_used' as const }
    }
    const delayMs = answer.final ? null : retryDelayMs(request.attempts, retrySchedule)
    if (delayMs !== null) {
      await logRequestAttempt(tx, leased.id, answer, answer.failure, { retryInMs: delayMs, endLease: leaseHeld })
      return { outcome: 'retried' as const }
    }
    await logRequestAttempt(tx, leased.id, answer, answer.failure, { status: 'failed', endLease: leaseHeld })
    await appendDeliveryFailedEvents(tx, request.shopId, [request.orderId],
      answer.failure ? failureText(answer.failure) : 'The delivery request failed.')
    return { outcome: 'failed' as const }
  })
}
