// The LISTEN connection of a Postgres-backed instance: one connection of its own
// (not the pool's) for every channel, which says not only what it hears but also
// when it stops hearing. postgres.js' own `listen` re-listens after a drop but
// never says that it dropped; the API key cache (lib/api-key-cache.ts) must
// know, since a revocation notice sent while the connection is down is lost
// (docs/security.md, Revocation).
import type { Options, Sql } from 'postgres'
import { payloadsOf } from './notifications.js'

export interface Subscriber {
  onNotify: (payload: string) => void
  /** The LISTEN is in place: at first, and again after each drop. */
  onListen: () => void
  /** The connection dropped: notifications are lost until the next onListen. */
  onDrop: () => void
}

/** How long to wait before listening again after a failed attempt. */
const RETRY_MS = 250

const listenStatement = (channel: string) => `listen "${channel.replace(/"/g, '""')}"`

export class PostgresListener {
  private readonly channels = new Map<string, Set<Subscriber>>()
  private readonly sql: Sql
  private connected = false
  private relistening = false
  private stopped = false
  private retry: NodeJS.Timeout | undefined

  constructor (open: (options: Options<Record<string, never>>) => Sql, options: Options<Record<string, never>>) {
    this.sql = open({
      ...options,
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      onclose: () => this.dropped(),
      // Not in postgres.js' types, but an option it honours (its own `listen` uses it).
      ...{ onnotify: (channel: string, notification: string) => this.received(channel, notification) }
    })
  }

  /** Listens on `channel` for `subscriber`; resolves once the LISTEN is in place. Returns the unsubscribe. */
  async subscribe (channel: string, subscriber: Subscriber): Promise<() => Promise<void>> {
    let subscribers = this.channels.get(channel)
    if (!subscribers) this.channels.set(channel, subscribers = new Set())
    subscribers.add(subscriber)
    await this.sql.unsafe(listenStatement(channel))
    this.connected = true
    subscriber.onListen()
    return async () => {
      subscribers.delete(subscriber)
      if (subscribers.size > 0 || this.stopped) return
      this.channels.delete(channel)
      await this.sql.unsafe(`un${listenStatement(channel)}`).catch(() => {})
    }
  }

  async stop () {
    this.stopped = true
    clearTimeout(this.retry)
    await this.sql.end({ timeout: 5 })
  }

  private received (channel: string, notification: string) {
    for (const subscriber of this.channels.get(channel) ?? []) payloadsOf(notification).forEach(subscriber.onNotify)
  }

  private dropped () {
    if (this.stopped || !this.connected) return
    this.connected = false
    for (const subscribers of this.channels.values()) for (const subscriber of subscribers) subscriber.onDrop()
    this.relisten().catch(() => {})
  }

  /** Listens on every channel again (the first statement reconnects), retrying until it succeeds. */
  private async relisten () {
    if (this.relistening || this.stopped) return
    this.relistening = true
    try {
      for (const channel of this.channels.keys()) await this.sql.unsafe(listenStatement(channel))
      this.relistening = false
      if (this.stopped) return
      this.connected = true
      for (const subscribers of this.channels.values()) for (const subscriber of subscribers) subscriber.onListen()
    } catch {
      this.relistening = false
      if (!this.stopped) this.retry = setTimeout(() => { this.relisten().catch(() => {}) }, RETRY_MS)
    }
  }
}
