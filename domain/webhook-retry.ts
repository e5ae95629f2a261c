// When a failed delivery is attempted again (docs/webhooks.md): the delays
// between consecutive attempts, each with ±10 % jitter so that deliveries that
// failed together (an endpoint's outage) do not all come back in the same second.

/** Seconds between attempts 1→2, 2→3, …: 8 attempts in all, about 28 hours. */
export const DEFAULT_RETRY_SCHEDULE = '5,300,1800,7200,18000,36000,36000'

/** Delivery requests (docs/delivery-endpoint.md): 3 attempts in all, the last 35 s after the first. */
export const DEFAULT_DELIVERY_RETRY_SCHEDULE = '5,30'

/** `WEBHOOK_RETRY_SCHEDULE`: seconds (decimals allowed), comma-separated. */
export const RETRY_SCHEDULE_PATTERN = '^\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)*$'

/** An endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000

export function parseRetrySchedule (text: string): number[] {
  return text.split(',').map(Number)
}

/**
 * Milliseconds to wait after the `attemptsMade`-th attempt failed, or null when
 * the schedule is used up (the delivery has failed for good).
 */
export function retryDelayMs (
  attemptsMade: number, scheduleSeconds: number[], random: () => number = Math.random
): number | null {
  const seconds = scheduleSeconds[attemptsMade - 1]
  if (seconds === undefined) return null
  return Math.round(seconds * 1000 * (0.9 + 0.2 * random()))
}
