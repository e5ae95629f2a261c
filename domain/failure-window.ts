// Failed attempts per client (wrong operator tokens per IP), counted in fixed
// windows: after `max` failures, the client is refused until its window ends.
// Bounded in memory, so a flood of addresses cannot grow it without limit.
export class FailureWindows {
  private readonly windows = new Map<string, { failures: number, endsAt: number }>()

  constructor (private readonly max: number, private readonly windowMs: number, private readonly capacity = 10_000) {}

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
    if (this.windows.size >= this.capacity) this.prune(now)
    this.windows.set(client, { failures: 1, endsAt: now + this.windowMs })
  }

  private prune (now: number) {
    for (const [client, window] of this.windows) if (window.endsAt <= now) this.windows.delete(client)
    // Still full: forget the oldest windows (a Map keeps insertion order).
    for (const client of this.windows.keys()) {
      if (this.windows.size < this.capacity) break
      this.windows.delete(client)
    }
  }
}
