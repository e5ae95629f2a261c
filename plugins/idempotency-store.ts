// Where idempotency records live: Redis when REDIS_URL / REDIS_SENTINELS is set (shared by every
// instance), otherwise the database. Both claim a key atomically before the
// request runs, so two instances receiving the same key at once run it once.
// A claim carries a token naming its request: a release drops the claim only
// if it is still that request's, never another request's claim of the same key.
// Redis is used through its breaker (plugins/redis.ts): while it is down every
// call fails at once, and a call that fails opens it.
// Behind Sentinel a failover promotes a replica, and Redis replicates after it
// answers: a claim or record the old primary took but had not passed on would be
// gone, and a retry would run the request again. There each claim and record
// waits (WAIT) until a replica has it, when the primary has one (ROLE, checked
// at most once a second); a claim no replica confirms in time is given up (503,
// the request does not run) (docs/deploying.md, "Redis Sentinel").
import { and, eq, isNull, lt } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ReplyError, type Redis } from 'ioredis'
import type { Db } from '../db/core/client.js'
import { idempotencyRecords } from '../db/tables.js'
import type { CircuitBreaker } from '../domain/circuit-breaker.js'

import { openResponseBody, sealResponse, type StoredResponse } from '../domain/sealed-responses.js'
import type { StockCipher } from '../domain/stock-cipher.js'

export interface IdempotencyRecord {
  fingerprint: string
  /** Null while the first request is still running. */
  response: StoredResponse | null
}

/** What a request claims a key with: its fingerprint, and a token naming the request. */
export interface Claim { fingerprint: string, token: string }

export interface IdempotencyStore {
  /** Claims `key` for a new request: null when claimed, else the record that holds it. */
  claim: (key: string, claim: Claim, lockMs: number) => Promise<IdempotencyRecord | null>
  /** Replaces the claim with the finished response, kept for `ttlMs`. */
  complete: (key: string, record: IdempotencyRecord, ttlMs: number) => Promise<void>
  /** Drops the claim of `key` if it is still `claim`, unfinished. */
  release: (key: string, claim: Claim) => Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    idempotencyStore: IdempotencyStore
  }
}

/** Deletes the key only while it holds exactly the claim that was set. */
const releaseScript = 'if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0'

/** Redis answering with an error is Redis up (and our bug); anything else is Redis away. */
const isRedisOutage = (err: unknown) => !(err instanceof ReplyError)

/** How long a write behind Sentinel waits for a replica to confirm it. */
const REPLICA_WAIT_MS = 250
/** How long the primary's replica count (ROLE) is taken as known. */
const REPLICA_CHECK_MS = 1000

/** Thrown when no replica confirmed a write in time: Redis answered, so its breaker stays closed. */
export class NotReplicatedError extends Error {
  constructor () {
    super(`no replica confirmed the write within ${REPLICA_WAIT_MS} ms`)
    this.name = 'NotReplicatedError'
  }
}

export function redisIdempotencyStore (
  redis: Redis, prefix: string, breaker: CircuitBreaker, options: { waitForReplica?: boolean } = {}
): IdempotencyStore {
  const call = <T>(operation: () => Promise<T>) => breaker.call(operation, isRedisOutage)
  const claimValue = (claim: Claim) => JSON.stringify({
    fingerprint: claim.fingerprint,
    response: null,
    token: claim.token
  })
  // A primary without replicas (the one just promoted, until the old one comes
  // back as its replica) has nobody to lose a write to: nothing to wait for.
  let replicasCheckedAt = 0
  let hasReplica = true
  async function replicated () {
    if (!options.waitForReplica) return
    if (Date.now() - replicasCheckedAt > REPLICA_CHECK_MS) {
      const [, , replicas] = await call(() => redis.role()) as [string, number, unknown[]]
      hasReplica = Array.isArray(replicas) && replicas.length > 0
      replicasCheckedAt = Date.now()
    }
    if (!hasReplica) return
    const confirmed = await call(() => redis.wait(1, REPLICA_WAIT_MS))
    if (confirmed < 1) {
      replicasCheckedAt = 0
      throw new NotReplicatedError()
    }
  }
  return {
    async claim (key, claim, lockMs) {
      // A claim that vanishes between SET NX and GET (expiry) is simply retried.
      for (let attempt = 0; attempt < 3; attempt++) {
        const claimed = await call(() => redis.set(prefix + key, claimValue(claim), 'PX', lockMs, 'NX'))
        if (claimed === 'OK') {
          await replicated()
          return null
        }
        const existing = await call(() => redis.get(prefix + key))
        if (existing !== null) {
          const record = JSON.parse(existing) as IdempotencyRecord
          return { fingerprint: record.fingerprint, response: record.response }
        }
      }
      throw new Error('idempotency key kept changing hands')
    },
    async complete (key, record, ttlMs) {
      await call(() => redis.set(prefix + key, JSON.stringify(record), 'PX', ttlMs))
      await replicated()
    },
    async release (key, claim) {
      await call(() => redis.eval(releaseScript, 1, prefix + key, claimValue(claim)))
    }
  }
}

/** After REDIS_PREFIX, the prefix of the idempotency records' keys. */
export const IDEMPOTENCY_REDIS_PREFIX = 'idem:'

/** Replaces a record only while it is still the one read, keeping its expiry. */
const replaceScript =
  'if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("SET", KEYS[1], ARGV[2], "KEEPTTL") end return false'

/**
 * The finished records under `prefix` (this deployment's `idem:` keys) sealed
 * again under the current key (`values:reencrypt`, docs/security.md): SCAN,
 * and each record not yet under it replaced only if unchanged meanwhile, its
 * expiry kept. Returns how many were sealed, and how many changed meanwhile.
 */
export async function resealRedisRecords (
  redis: Redis, prefix: string, cipher: StockCipher, onProgress?: (done: number) => void
): Promise<{ done: number, remaining: number }> {
  let done = 0
  let remaining = 0
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
    for (const key of keys as string[]) {
      const text = await redis.get(key)
      const record = text === null ? null : JSON.parse(text) as IdempotencyRecord
      if (record?.response == null || record.response.keyId === cipher.keyId) continue
      const storeKey = key.slice(prefix.length)
      const { keyId: _old, ...response } = record.response
      const sealed = sealResponse(cipher, storeKey,
        { ...response, body: openResponseBody(cipher, storeKey, record.response) })
      if (await redis.eval(replaceScript, 1, key, text!,
        JSON.stringify({ ...record, response: sealed })) === 'OK') done++
      else remaining++
    }
    onProgress?.(done)
  }
  return { done, remaining }
}

/** The lease token's columns: lease_token, and claim_token while older instances may run (migration 0019). */
const heldBy = (token: string | null) => ({ leaseToken: token, formerClaimToken: token })

export function databaseIdempotencyStore (db: Db): IdempotencyStore {
  const t = idempotencyRecords
  return {
    async claim (key, { fingerprint, token }, lockMs) {
      const now = Date.now()
      // Insert, or take over a record that has expired: one atomic statement.
      const claimed = await db.insert(t)
        .values({ key, fingerprint, response: null, ...heldBy(token), expiresAt: now + lockMs })
        .onConflictDoUpdate({
          target: t.key,
          set: { fingerprint, response: null, ...heldBy(token), expiresAt: now + lockMs },
          setWhere: lt(t.expiresAt, now)
        })
        .returning({ key: t.key })
      if (claimed.length > 0) return null
      const [existing] = await db.select({ fingerprint: t.fingerprint, response: t.response }).from(t).where(eq(t.key,
        key))
      return existing ?? { fingerprint, response: null }
    },
    async complete (key, record, ttlMs) {
      await db.update(t)
        .set({
          fingerprint: record.fingerprint,
          response: record.response,
          ...heldBy(null),
          expiresAt: Date.now() + ttlMs
        })
        .where(eq(t.key, key))
    },
    async release (key, { token }) {
      // Both columns must still name the request: an older instance's takeover rewrites only claim_token.
      await db.delete(t).where(and(eq(t.key, key), isNull(t.response), eq(t.leaseToken, token),
        eq(t.formerClaimToken, token)))
    }
  }
}

/** How often expired database records are swept. */
const SWEEP_INTERVAL_MS = 10 * 60_000

async function idempotencyStorePlugin (fastify: FastifyInstance) {
  if (fastify.redis && fastify.redisHealth) {
    fastify.decorate('idempotencyStore',
      redisIdempotencyStore(fastify.redis, `${fastify.config.REDIS_PREFIX}${IDEMPOTENCY_REDIS_PREFIX}`,
        fastify.redisHealth,
        { waitForReplica: fastify.config.REDIS_SENTINELS !== undefined }))
    return
  }
  fastify.decorate('idempotencyStore', databaseIdempotencyStore(fastify.db))
  const sweep = setInterval(() => {
    fastify.db.delete(idempotencyRecords).where(lt(idempotencyRecords.expiresAt, Date.now()))
      .catch((err: unknown) => fastify.log.warn({ err }, 'could not sweep expired idempotency records'))
  }, SWEEP_INTERVAL_MS)
  sweep.unref()
  fastify.addHook('onClose', async () => { clearInterval(sweep) })
}

export default fp(idempotencyStorePlugin, { name: 'idempotency-store', dependencies: ['db', 'redis'] })
