// Failed attempts per client (wrong operator tokens per IP), counted in fixed
// windows: after `max` failures, the client is refused until its window ends.
// An LRU bounded by count (toad-cache), so a flood of addresses cannot grow it.
import { LruMap } from 'toad-cache'

export class FailureWindows {
  private readonly windows: LruMap<{ failures: number, endsAt: number }>
  private readonly max: number
  private readonly windowMs: number

  constructor (max: number, windowMs: number, capacity = 10_000) {
    this.windows = new LruMap(capacity)
    this.max = max
    this.windowMs = windowMs
  }

  /** Milliseconds until `client` may try again; 0 when it is not over its failures. */
  blockedFor (client: string, now = Date.now()): number {
    const window = this.windows.get(client)
    if (window === undefined) return 0
    if (window.endsAt <= now) {
      this.windows.delete(client)
      return 0
    }
    return window.failures >= this.max ? window.endsAt - now : 0
  }

  record (client: string, now = Date.now()) {
    const window = this.windows.get(client)
    if (window !== undefined && window.endsAt > now) {
      window.failures++
      return
    }
    this.windows.set(client, { failures: 1, endsAt: now + this.windowMs })
  }
}
