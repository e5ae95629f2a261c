// A `fetch` for openapi-fetch that does what every integrator writes again:
// the key header, an `Idempotency-Key` on the calls that accept one (the same
// key on every retry of a call, so a retry never acts twice), and retries of
// 429 and 503 honouring `Retry-After` (a load balancer's 502 / 504 and network
// failures too, when the call is safe to repeat: a GET, or a call carrying an
// Idempotency-Key).
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  attempts?: number
  /** The wait when a 429/502/503/504 carries no Retry-After, doubled each time (default 500 ms). */
  baseDelayMs?: number
  /** The longest single wait (default 30 s). */
  maxDelayMs?: number
}

/**
 * Seller operations that accept an Idempotency-Key: creating a product, take / deliver / cancel, posting a
 * message, adding stock.
 */
const idempotentPost = /^\/v1\/(products|products\/[^/]+\/stock\/items|orders\/[^/]+\/(take|deliver|cancel|messages))\/?$/

const retriedWhenRepeatable = new Set([502, 503, 504])

export function retryingFetch (
  apiKey: string, options: RetryOptions = {}, baseFetch: typeof fetch = fetch
): (request: Request) => Promise<Response> {
  const attempts = options.attempts ?? 4
  const baseDelayMs = options.baseDelayMs ?? 500
  const maxDelayMs = options.maxDelayMs ?? 30_000
  return async function send (input: Request): Promise<Response> {
    const request = new Request(input)
    request.headers.set('authorization', `Bearer ${apiKey}`)
    const idempotent = request.method === 'POST' && idempotentPost.test(new URL(request.url).pathname)
    if (idempotent && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', randomUUID())
    }
    const repeatable = request.method === 'GET' || request.headers.has('idempotency-key')
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts
      let response: Response
      try {
        response = await baseFetch(request.clone())
      } catch (err) {
        if (last || !repeatable || request.signal.aborted) throw err
        await sleep(backoff(attempt, baseDelayMs, maxDelayMs), undefined, { signal: request.signal })
        continue
      }
      // A 429 was refused before any work; a 503, or a balancer's 502 / 504 (the
      // instance behind it went away mid-request), may have been cut mid-way, so
      // they are repeated only when that is safe.
      const retry = response.status === 429 || (retriedWhenRepeatable.has(response.status) && repeatable)
      if (!retry || last) return response
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoff(attempt, baseDelayMs, maxDelayMs)
      await response.body?.cancel()
      await sleep(Math.min(wait, maxDelayMs), undefined, { signal: request.signal })
    }
  }
}

const backoff = (attempt: number, base: number, max: number) => Math.min(max, base * 2 ** (attempt - 1))

/** Retry-After as delay-seconds or an HTTP date, in ms; null when absent or unreadable. */
export function retryAfterMs (value: string | null): number | null {
  if (value === null) return null
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now())
}
