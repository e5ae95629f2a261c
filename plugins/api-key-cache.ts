// Resolved API keys kept in memory, so a request needs no database lookup, while a
// revocation still acts on the very next request on every instance (CONTRACT 2).
//
// A revocation, once committed, replaces the *revocation epoch*: a random token in
// Redis. The rate-limit script every request already runs returns the token in the
// same round trip. A cached key is trusted only when a reply to a script sent
// after its request began carries the token the key was cached under; anything
// else (a new token, Redis away) sends the request to the database. A key is
// cached under the token seen *before* its database read, so a read that raced a
// revocation is never trusted after the revocation's new token.
//
// Modes: `shared` with Redis; `local` on the embedded database, where this
// process is the only one that can revoke (the epoch lives here); `off` on
// Postgres without Redis, where other instances could revoke unseen.
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { LruMap } from 'toad-cache'
import type { AuthenticatedKey } from '../db/api-keys.js'

export type ApiKeyCacheMode = 'shared' | 'local' | 'off'

/** Bounds the memory: about 300 bytes a key. */
const CAPACITY = 10_000
/** A backstop only: a key is looked up again at least this often, whatever Redis says. */
const MAX_AGE_MS = 60_000

/** What a request served from the cache must see confirmed before it goes on. */
export interface PendingKeyCheck { hash: string, mark: number, epoch: string }

/** The Redis key holding the revocation epoch of a deployment. */
export const revocationEpochKey = (prefix: string) => `${prefix}api-key-revocations`

/** Tells every instance that a key was revoked: call after the revocation committed. */
export async function publishRevocation (redis: Redis, prefix: string): Promise<void> {
  await redis.set(revocationEpochKey(prefix), randomUUID())
}

export class ApiKeyCache {
  private readonly entries = new LruMap<{ key: AuthenticatedKey, epoch: string }>(CAPACITY, MAX_AGE_MS)
  /** The newest revocation epoch known here; null while unknown (nothing is cached then). */
  private epoch: string | null
  /** Sequence numbers of rate-limit scripts sent, and of the one whose reply set `epoch`. */
  private sent = 0
  private epochSeq = 0

  constructor (readonly mode: ApiKeyCacheMode) {
    this.epoch = mode === 'local' ? randomUUID() : null
  }

  /** The epoch to cache a database read under: taken before the read starts. */
  get currentEpoch (): string | null {
    return this.epoch
  }

  /**
   * The cached key for this hash, with the check its request must pass after its
   * rate-limit script (none in local mode, where the epoch is this process's own).
   */
  recall (hash: string): { key: AuthenticatedKey, check: PendingKeyCheck | null } | undefined {
    if (this.epoch === null) return undefined
    const entry = this.entries.get(hash)
    if (entry === undefined || entry.epoch !== this.epoch) return undefined
    return { key: entry.key, check: this.mode === 'shared' ? { hash, mark: this.sent, epoch: entry.epoch } : null }
  }

  /** Caches a key read from the database while `epoch` was current. */
  remember (hash: string, key: AuthenticatedKey, epoch: string | null) {
    if (epoch !== null && epoch === this.epoch) this.entries.set(hash, { key, epoch })
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

  /** True when a script sent after the check's request began saw the key's epoch still current. */
  confirms (check: PendingKeyCheck): boolean {
    return this.epochSeq > check.mark && this.epoch === check.epoch
  }

  /** A revocation committed in this process (local mode). */
  revokedHere () {
    this.entries.clear()
    if (this.mode === 'local') this.epoch = randomUUID()
  }
}
