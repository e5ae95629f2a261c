// A dependency's health as a circuit breaker: `closed` (in use), `open` (known to
// be down: callers are refused at once instead of waiting on it) and `half-open`
// (one probe in flight). A failure opens it; while open, a single background
// probe runs every `probeIntervalMs`, and the first one that succeeds closes it.
// Emits `open` (with the error) and `close` (with the outage's length in ms)
// once per outage, so an outage is one warning, not one per request.
import { EventEmitter } from 'node:events'

export type BreakerState = 'closed' | 'open' | 'half-open'

/** Refusal while a dependency's breaker is not closed: the caller answers 503 without waiting. */
export class DependencyUnavailableError extends Error {
  readonly code = 'DEPENDENCY_UNAVAILABLE'
  readonly dependency: string
  constructor (dependency: string) {
    super(`${dependency} is unavailable`)
    this.dependency = dependency
    this.name = 'DependencyUnavailableError'
  }
}

export interface BreakerOptions {
  /** Names the dependency in errors and events: `database`, `redis`. */
  name: string
  /** One check of the dependency; rejects when it is down. Must be bounded in time. */
  probe: () => Promise<unknown>
  probeIntervalMs: number
}

export class CircuitBreaker extends EventEmitter<{ open: [unknown], close: [number] }> {
  private current: BreakerState = 'closed'
  private openedAt = 0
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private readonly options: BreakerOptions

  constructor (options: BreakerOptions) {
    super()
    this.options = options
  }

  get name (): string { return this.options.name }
  get state (): BreakerState { return this.current }

  /** Throws DependencyUnavailableError unless the dependency is in use. */
  assertClosed () {
    if (this.current !== 'closed') throw new DependencyUnavailableError(this.options.name)
  }

  /**
   * Runs `operation` through the breaker: refused at once while not closed; a
   * failure for which `isOutage` holds (by default any) opens it, and is rethrown.
   */
  async call<T> (operation: () => Promise<T>, isOutage: (err: unknown) => boolean = () => true): Promise<T> {
    this.assertClosed()
    try {
      return await operation()
    } catch (err) {
      if (isOutage(err)) this.trip(err)
      throw err
    }
  }

  /** The dependency failed: stop using it and start probing in the background. */
  trip (err: unknown) {
    if (this.current !== 'closed' || this.stopped) return
    this.current = 'open'
    this.openedAt = Date.now()
    this.emit('open', err)
    this.scheduleProbe()
  }

  /** No more probes (the app is closing). */
  stop () {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private scheduleProbe () {
    if (this.stopped) return
    this.timer = setTimeout(() => { this.probe().catch(() => {}) }, this.options.probeIntervalMs)
    this.timer.unref()
  }

  private async probe () {
    this.current = 'half-open'
    try {
      await this.options.probe()
    } catch {
      this.current = 'open'
      this.scheduleProbe()
      return
    }
    this.current = 'closed'
    this.emit('close', Date.now() - this.openedAt)
  }
}
