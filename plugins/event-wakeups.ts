// Wake-ups for held long polls of the events feed, as `fastify.eventWakeups`.
// One LISTEN per instance (its own connection, not the pool's) hears the NOTIFY
// that follows the commit of every event (db/events.ts), whichever instance
// wrote it, and wakes only the held requests of that shop. A wake-up is a hint:
// the woken request re-reads the feed. When the listening connection comes back
// after a drop, every held request is woken once, since hints sent meanwhile are
// lost. A key revocation's notice wakes the shop's held requests as well, to
// re-check their key (docs/security.md). On close, held requests are answered at once.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { KEY_REVOCATIONS_CHANNEL } from '../db/api-keys.js'
import { EVENTS_CHANNEL } from '../db/events.js'

declare module 'fastify' {
  interface FastifyInstance {
    eventWakeups: WakeupRegistry
  }
}

/** One held request: told when its shop has had an event. */
export interface EventWatch {
  /**
   * Resolves true as soon as the shop has had an event since the watch began or
   * since the previous call, false after `timeoutMs` or when the watch is closed.
   */
  next: (timeoutMs: number) => Promise<boolean>
  /** Stops watching (a pending `next` resolves false). */
  close: () => void
}

class Waiter implements EventWatch {
  private woken = false
  private closed = false
  private settle: ((woken: boolean) => void) | null = null
  private timer: NodeJS.Timeout | undefined

  constructor (private readonly onClose: (waiter: Waiter) => void) {}

  /** Parked in `next`, waiting for an event (not reading the feed). */
  get waiting (): boolean {
    return this.settle !== null
  }

  wake () {
    if (this.settle) this.finish(true)
    else this.woken = true
  }

  next (timeoutMs: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    if (this.woken) {
      this.woken = false
      return Promise.resolve(true)
    }
    if (timeoutMs <= 0) return Promise.resolve(false)
    return new Promise((resolve) => {
      this.settle = resolve
      this.timer = setTimeout(() => this.finish(false), timeoutMs)
    })
  }

  close () {
    if (this.closed) return
    this.closed = true
    this.onClose(this)
    this.finish(false)
  }

  private finish (woken: boolean) {
    clearTimeout(this.timer)
    const settle = this.settle
    this.settle = null
    settle?.(woken)
  }
}

/** This instance's held requests, by shop. */
export class WakeupRegistry {
  private readonly byShop = new Map<string, Set<Waiter>>()
  private shuttingDown = false

  /** Starts watching `shopId`; call before reading the feed, so nothing committed after the read is missed. */
  watch (shopId: string): EventWatch {
    const waiter = new Waiter((w) => this.forget(shopId, w))
    if (this.shuttingDown) {
      waiter.close()
      return waiter
    }
    let waiters = this.byShop.get(shopId)
    if (!waiters) this.byShop.set(shopId, waiters = new Set())
    waiters.add(waiter)
    return waiter
  }

  wake (shopId: string) {
    for (const waiter of this.byShop.get(shopId) ?? []) waiter.wake()
  }

  wakeAll () {
    for (const waiters of this.byShop.values()) for (const waiter of waiters) waiter.wake()
  }

  /** Answers every held request now, and every later one without waiting. */
  closeAll () {
    this.shuttingDown = true
    for (const waiters of [...this.byShop.values()]) for (const waiter of [...waiters]) waiter.close()
  }

  /** How many held requests are waiting for an event right now. */
  get waiting (): number {
    let n = 0
    for (const waiters of this.byShop.values()) for (const waiter of waiters) if (waiter.waiting) n++
    return n
  }

  /** Whether this instance is shutting down (held requests are being answered). */
  get closing (): boolean {
    return this.shuttingDown
  }

  private forget (shopId: string, waiter: Waiter) {
    const waiters = this.byShop.get(shopId)
    if (!waiters) return
    waiters.delete(waiter)
    if (waiters.size === 0) this.byShop.delete(shopId)
  }
}

async function eventWakeupsPlugin (fastify: FastifyInstance) {
  const registry = new WakeupRegistry()
  let listening = false
  const unlisten = await fastify.database.listen(EVENTS_CHANNEL, (shopId) => registry.wake(shopId), () => {
    if (listening) {
      fastify.log.warn('event listener reconnected: waking every held long poll to re-read')
      registry.wakeAll()
    }
    listening = true
  })
  // A revocation wakes the shop's held requests too: each re-checks its key and a revoked one gets 401.
  const unlistenRevocations = await fastify.database.listen(KEY_REVOCATIONS_CHANNEL, (shopId) => registry.wake(shopId), () => {})
  fastify.decorate('eventWakeups', registry)
  fastify.addHook('preClose', async () => { registry.closeAll() })
  fastify.addHook('onClose', async () => {
    await Promise.all([unlisten(), unlistenRevocations()]).catch((err: unknown) => fastify.log.warn({ err }, 'could not stop the event listener'))
  })
}

export default fp(eventWakeupsPlugin, { name: 'event-wakeups', dependencies: ['db'] })
