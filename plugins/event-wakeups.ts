// Wake-ups for held long polls of the events feed, as `fastify.eventWakeups`.
// One LISTEN per instance (its own connection, not the pool's) hears the NOTIFY
// that follows the commit of every event (db/events/store.ts), whichever instance
// wrote it, and wakes only the held requests of that shop. A wake-up is a hint:
// the woken requests re-read the feed. When several requests of the shop are
// parked, the registry reads once for all of them, after the hint arrived, from
// the lowest of their cursors and with every kind of event; each is served its
// own page from that read (docs/events.md, "One read per wake-up"). When the
// listening connection comes back after a drop, every held request is woken
// once, since hints sent meanwhile are lost. A key revocation's notice wakes
// the shop's held requests as well, to re-check their key (docs/security.md).
// On close, held requests are answered at once.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter } from 'prom-client'
import { KEY_REVOCATIONS_CHANNEL } from '../db/shops/api-keys.js'
import { EVENTS_CHANNEL, readFeed, type FeedRead } from '../db/events/store.js'
import { eventTypes } from '../domain/event-types.js'

declare module 'fastify' {
  interface FastifyInstance {
    eventWakeups: WakeupRegistry
  }
}

/** Where a parked request stands: the cursor it waits after and the page size it wants. */
export interface WaitPosition { after: number, limit: number }

/**
 * What ended a wait: `null` (time is up, or the watch was closed), `'woken'` (an
 * event came: read the feed), or a read of every kind of event made for several
 * requests after the event came (serve the page from it, db/events/store.ts `pageOf`).
 */
export type Wakeup = null | 'woken' | FeedRead

/** One held request: told when its shop has had an event. */
export interface EventWatch {
  /** Waits up to `timeoutMs` for the shop's next event since the watch began or since the previous call. */
  next: (timeoutMs: number, position: WaitPosition) => Promise<Wakeup>
  /** Stops watching (a pending `next` resolves null). */
  close: () => void
}

type Settle = (wakeup: Wakeup) => void

class Waiter implements EventWatch {
  private woken = false
  private closed = false
  private settle: Settle | null = null
  private timer: NodeJS.Timeout | undefined
  /** Set while parked in `next`. */
  position: WaitPosition | null = null

  private readonly onClose: (waiter: Waiter) => void

  constructor (onClose: (waiter: Waiter) => void) {
    this.onClose = onClose
  }

  wake () {
    if (this.settle) this.finish('woken')
    else this.woken = true
  }

  next (timeoutMs: number, position: WaitPosition): Promise<Wakeup> {
    if (this.closed) return Promise.resolve(null)
    if (this.woken) {
      this.woken = false
      return Promise.resolve('woken')
    }
    if (timeoutMs <= 0) return Promise.resolve(null)
    return new Promise((resolve) => {
      this.settle = resolve
      this.position = position
      this.timer = setTimeout(() => this.finish(null), timeoutMs)
    })
  }

  /** Takes the parked waiter out of waiting, to be answered with a shared read. */
  claim (): Settle {
    const settle = this.settle!
    clearTimeout(this.timer)
    this.settle = null
    this.position = null
    return settle
  }

  close () {
    if (this.closed) return
    this.closed = true
    this.onClose(this)
    this.finish(null)
  }

  private finish (wakeup: Wakeup) {
    clearTimeout(this.timer)
    const settle = this.settle
    this.settle = null
    this.position = null
    settle?.(wakeup)
  }
}

/** A read of the shop's feed after `after`, every kind of event, up to `limit`. */
export type SharedRead = (shopId: string, after: number, limit: number) => Promise<FeedRead>

export interface SharedReadCounters {
  /** A shared read was made for `waiters` parked requests. */
  read: (waiters: number) => void
}

/** This instance's held requests, by shop. */
export class WakeupRegistry {
  private readonly byShop = new Map<string, Set<Waiter>>()
  private shuttingDown = false

  private readonly readShared: SharedRead
  private readonly counters: SharedReadCounters

  constructor (readShared: SharedRead, counters: SharedReadCounters = { read: () => {} }) {
    this.readShared = readShared
    this.counters = counters
  }

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

  /**
   * The shop had an event: the requests busy reading are told to read again
   * when done; the parked ones get one read between them (one alone reads for itself).
   */
  wake (shopId: string) {
    const waiters = this.byShop.get(shopId)
    if (!waiters) return
    const parked: Waiter[] = []
    for (const waiter of waiters) {
      if (waiter.position) parked.push(waiter)
      else waiter.wake()
    }
    if (parked.length < 2) {
      for (const waiter of parked) waiter.wake()
      return
    }
    let after = Infinity
    let limit = 0
    for (const { position } of parked) {
      after = Math.min(after, position!.after)
      limit = Math.max(limit, position!.limit)
    }
    const answers = parked.map((waiter) => waiter.claim())
    this.counters.read(parked.length)
    // Should the shared read fail, each request reads for itself (and meets the error itself).
    this.readShared(shopId, after, limit).then(
      (read) => { for (const answer of answers) answer(read) },
      () => { for (const answer of answers) answer('woken') })
  }

  wakeAll () {
    for (const shopId of [...this.byShop.keys()]) this.wake(shopId)
  }

  /** Answers every held request now, and every later one without waiting. */
  closeAll () {
    this.shuttingDown = true
    for (const waiters of [...this.byShop.values()]) for (const waiter of [...waiters]) waiter.close()
  }

  /** How many held requests are waiting for an event right now. */
  get waiting (): number {
    let n = 0
    for (const waiters of this.byShop.values()) for (const waiter of waiters) if (waiter.position) n++
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
  const sharedReads = new Counter({
    name: 'events_shared_reads_total',
    help: 'Feed reads made once for several held long polls of one shop woken by the same event.',
    registers: [fastify.metrics]
  })
  const sharedReadWaiters = new Counter({
    name: 'events_shared_read_polls_total',
    help: 'Held long polls served by a shared feed read (each would otherwise have read on its own).',
    registers: [fastify.metrics]
  })
  const registry = new WakeupRegistry(
    (shopId, after, limit) => readFeed(fastify.db, shopId, after, eventTypes, limit),
    { read: (waiters) => { sharedReads.inc(); sharedReadWaiters.inc(waiters) } })
  let listening = false
  const unlisten = await fastify.dbConnection.listen(EVENTS_CHANNEL, (shopId) => registry.wake(shopId), () => {
    if (listening) {
      fastify.log.warn('event listener reconnected: waking every held long poll to re-read')
      registry.wakeAll()
    }
    listening = true
  })
  // A revocation wakes the shop's held requests too: each re-checks its key and a revoked one gets 401.
  const unlistenRevocations = await fastify.dbConnection.listen(KEY_REVOCATIONS_CHANNEL,
    (shopId) => registry.wake(shopId), () => {})
  fastify.decorate('eventWakeups', registry)
  fastify.addHook('preClose', async () => { registry.closeAll() })
  fastify.addHook('onClose', async () => {
    await Promise.all([unlisten(), unlistenRevocations()]).catch((err: unknown) => fastify.log.warn({ err },
      'could not stop the event listener'))
  })
}

export default fp(eventWakeupsPlugin, { name: 'event-wakeups', dependencies: ['db', 'metrics'] })
