// Metrics of the delivery requests (docs/delivery-endpoint.md), on the app's
// registry (plugins/metrics.ts): every attempt by what it came to, and the time
// from a purchase to its delivery by the seller's endpoint.
import { Counter, Histogram, type Registry } from 'prom-client'
import type { RequestOutcome } from '../../db/delivery-endpoint/requests.js'

/** Seconds; from an endpoint answering at once to a delivery after the retries. */
const SINCE_PURCHASE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

export function deliveryRequestMetrics (registry: Registry) {
  const attempts = new Counter({
    name: 'delivery_request_attempts_total',
    help: 'Attempts of delivery requests to the shops\' delivery endpoints, by outcome: succeeded (the order ' +
      'was delivered), retried, failed (no attempt left, or 409/422), discarded (the order had left paid), ' +
      'not_used (the request had already ended), not_sent (the order had left paid before the attempt).',
    labelNames: ['outcome'] as const,
    registers: [registry]
  })
  const sincePurchase = new Histogram({
    name: 'delivery_request_purchase_to_delivery_seconds',
    help: 'Time from a purchase to its delivery with the values its delivery endpoint answered.',
    buckets: SINCE_PURCHASE_BUCKETS,
    registers: [registry]
  })
  return (outcome: RequestOutcome | 'not_sent', sincePurchaseMs?: number) => {
    attempts.inc({ outcome })
    if (sincePurchaseMs !== undefined) sincePurchase.observe(sincePurchaseMs / 1000)
  }
}
