// One attempt of a delivery request (docs/delivery-endpoint.md), made by the
// webhook worker (webhooks/worker.ts) for a leased row of kind
// `delivery_request`: the same signed POST as a webhook through the same sender,
// but with DELIVERY_TIMEOUT_MS, its answer read, judged (domain/delivery-answer.ts)
// and recorded with what it led to (db/delivery-endpoint/requests.ts).
import type { Db } from '../db/core/client.js'
import { recordRequestAttempt, requestStillWanted, type RequestOutcome } from '../db/delivery-endpoint/requests.js'
import type { LeasedSend } from '../db/webhooks/queue.js'
import { judgeAnswer } from '../domain/delivery-answer.js'
import type { StockCipher } from '../domain/stock-cipher.js'
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
  db: Db, sender: Sender, delivery: LeasedSend, options: DeliveryRequestOptions, cutShort: AbortSignal
): Promise<SentAttempt | null> {
  if (!await requestStillWanted(db, delivery)) {
    options.observe?.('not_sent')
    return null
  }
  const sent = await sender.send({
    url: delivery.url,
    webhookId: delivery.webhookId,
    body: webhookBody(delivery.eventType, delivery.timestamp, delivery.data),
    secrets: delivery.secrets,
    signal: cutShort,
    answer: { timeoutMs: options.timeoutMs }
  })
  if (cutShort.aborted && sent.statusCode === null) return sent
  const judged = judgeAnswer(sent)
  const { outcome, sincePurchaseMs } = await recordRequestAttempt(db, options.cipher, delivery, {
    statusCode: sent.statusCode,
    durationMs: sent.durationMs,
    values: judged.ok ? judged.values : null,
    error: judged.ok ? null : judged.error,
    final: !judged.ok && judged.final
  }, options.retrySchedule)
  options.observe?.(outcome, sincePurchaseMs)
  return sent
}
