// Resolved API keys kept in memory, so a request needs no database lookup, while a
// revocation still acts on the very next request on every instance (docs/api-rules.md,
// authentication; docs/security.md).
//
// Postgres tells every instance: a revocation commits together with a NOTIFY
// on KEY_REVOCATIONS_CHANNEL (db/shops/api-keys.ts), which each instance's LISTEN
// connection hears; a notice starts a new *generation* and keys cached in an
// older one are looked up again. Notices sent while that connection is down are
// lost, so nothing is cached (every request asks the database) from the moment
// it drops until it listens again. This works whoever revokes (the operator API,
// the CLI) and whether or not Redis answers.
//
// With Redis, a committed revocation also replaces the *revocation epoch*: a
// random token the rate-limit script every request already runs returns in the
// same round trip. A cached key is then trusted only when a reply to a script
// sent after its request began carries the token the key was cached under;
// anything else (a new token, Redis away) sends the request to the database.
// That closes the moment between a commit and its notice reaching an instance.
//
// A key is cached under the generation and epoch seen *before* its database
// read, so a read that raced a revocation is never trusted after it.
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { LruMap } from 'toad-cache'
import type { AuthenticatedKey } from '../db/shops/api-keys.js'

/** `shared`: with Redis (notices and the epoch); `database`: notices alone. */
export type ApiKeyCacheMode = 'shared' | 'database'

/** Bounds the memory: about 300 bytes a key. */
const CAPACITY = 10_000
/** A backstop only: a key is looked up again at least this often, whatever else says. */
const MAX_AGE_MS = 60_000

/** What a request served from the cache must see confirmed before it goes on. */
export interface PendingKeyCheck { hash: string, mark: number, epoch: string, generation: number }

/** What a database read is cached under: the state before it began. */
export interface CacheMark { epoch: string | null, generation: number }

/** The Redis key holding the revocation epoch of a deployment. */
export const revocationEpochKey = (prefix: string) => `${prefix}api-key-revocations`

/** Makes every instance's script replies carry a new epoch: call after the revocation committed. */
export async function publishRevocation (redis: Redis, prefix: string): Promise<void> {
  await redis.set(revocationEpochKey(prefix), randomUUID())
}

interface Entry { key: AuthenticatedKey, epoch: string | null, generation: number }

export class ApiKeyCache {
  private readonly entries = new LruMap<Entry>(CAPACITY, MAX_AGE_MS)
  /** The newest revocation epoch known here (shared mode); null while unknown (nothing is cached then). */
  private epoch: string | null = null
  /** Sequence numbers of rate-limit scripts sent, and of the one whose reply set `epoch`. */
  private sent = 0
  private epochSeq = 0
  /** Bumped by each revocation notice, each drop and each return of the LISTEN connection. */
  private generation = 0
  /** Whether the LISTEN connection is in place (nothing is cached while it is not). */
  private listening = false
  readonly mode: ApiKeyCacheMode

  constructor (mode: ApiKeyCacheMode) {
    this.mode = mode
  }

  /** The state to cache a database read under: taken before the read starts. */
  get mark (): CacheMark {
    return { epoch: this.epoch, generation: this.generation }
  }

  /** Whether keys can be cached at all: the listener hears notices (and, with Redis, an epoch is known). */
  private get usable (): boolean {
    return this.listening && (this.mode !== 'shared' || this.epoch !== null)
  }

  /**
   * The cached key for this hash, with the check its request must pass after its
   * rate-limit script (none without Redis).
   */
  recall (hash: string): { key: AuthenticatedKey, check: PendingKeyCheck | null } | undefined {
    if (!this.usable) return undefined
    const entry = this.entries.get(hash)
    if (entry === undefined || entry.generation !== this.generation || entry.epoch !== this.epoch) return undefined
    return {
      key: entry.key,
      check: this.mode === 'shared'
        ? {
            hash,
            mark: this.sent,
            epoch: entry.epoch!,
            generation: entry.generation
          }
        : null
    }
  }

  /** Whether a key cached for this hash is still current by the notices alone (a held long poll re-checking). */
  holds (hash: string): boolean {
    const entry = this.listening ? this.entries.get(hash) : undefined
    return entry !== undefined && entry.generation === this.generation
  }

  /** Caches a key read from the database under the state taken before the read. */
  remember (hash: string, key: AuthenticatedKey, mark: CacheMark) {
    if (this.usable && mark.generation === this.generation && mark.epoch === this.epoch) {
      this.entries.set(hash, { key, epoch: mark.epoch, generation: mark.generation })
    }
  }

  /** Numbers a rate-limit script about to be sent. */
  sending (): number {
    return ++this.sent
  }

  /** The epoch a script's reply carried; replies arrive in the order the scripts ran. */
  observe (seq: number, epoch: string) {
    if (seq <= this.epochSeq) return
    this.epochSeq = seq
    if (epoch !== this.epoch) {
      this.entries.clear()
      this.epoch = epoch
    }
  }

  /**
   * True when a script sent after the check's request began saw the key's epoch still current, and no notice
   * came since.
   */
  confirms (check: PendingKeyCheck): boolean {
    return this.epochSeq > check.mark && this.epoch === check.epoch && this.generation === check.generation
  }

  /** Revocation notices heard and revocations committed here, since the start (for tests and metrics). */
  revocationsSeen = 0

  /** A revocation notice (from any instance, this one included), or a revocation committed here. */
  revoked () {
    this.revocationsSeen++
    this.newGeneration()
  }

  /** The LISTEN connection is in place again: notices are heard from now on. */
  listenerUp () {
    this.newGeneration()
    this.listening = true
  }

  /** The LISTEN connection dropped: notices are lost until it is back, so nothing is trusted meanwhile. */
  listenerDown () {
    this.listening = false
    this.newGeneration()
  }

  /** Whether the LISTEN connection is in place: revocation notices are heard. */
  get hearsNotices (): boolean {
    return this.listening
  }

  /** Whether keys are being cached right now (for logs and tests). */
  get active (): boolean {
    return this.usable
  }

  private newGeneration () {
    this.generation++
    this.entries.clear()
  }
}
