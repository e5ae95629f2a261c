// Where idempotency records live: Redis when REDIS_URL is set (shared by every
// instance), otherwise the database. Both claim a key atomically before the
// request runs, so two instances receiving the same key at once run it once.
import { and, eq, lt, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type { Db } from '../db/client.js'
import { idempotencyRecords } from '../db/schema.js'

export interface StoredResponse { statusCode: number, headers: Record<string, string>, body: string }

export interface IdempotencyRecord {
  fingerprint: string
  /** Null while the first request is still running. */
  response: StoredResponse | null
}

export interface IdempotencyStore {
  /** Claims `key` for a new request: null when claimed, else the record that holds it. */
  claim: (key: string, fingerprint: string, lockMs: number) => Promise<IdempotencyRecord | null>
  /** Replaces the claim with the finished response, kept for `ttlMs`. */
  complete: (key: string, record: IdempotencyRecord, ttlMs: number) => Promise<void>
  /** Drops a claim whose request ended without a storable outcome. */
  release: (key: string) => Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    idempotencyStore: IdempotencyStore
  }
}

export function redisIdempotencyStore (redis: Redis, prefix: string): IdempotencyStore {
  return {
    async claim (key, fingerprint, lockMs) {
      // A claim that vanishes between SET NX and GET (expiry) is simply retried.
      for (let attempt = 0; attempt < 3; attempt++) {
        const claimed = await redis.set(prefix + key, JSON.stringify({ fingerprint, response: null }), 'PX', lockMs, 'NX')
        if (claimed === 'OK') return null
        const existing = await redis.get(prefix + key)
        if (existing !== null) return JSON.parse(existing) as IdempotencyRecord
      }
      throw new Error('idempotency key kept changing hands')
    },
    async complete (key, record, ttlMs) {
      await redis.set(prefix + key, JSON.stringify(record), 'PX', ttlMs)
    },
    async release (key) {
      await redis.del(prefix + key)
    }
  }
}

export function databaseIdempotencyStore (db: Db): IdempotencyStore {
  const t = idempotencyRecords
  return {
    async claim (key, fingerprint, lockMs) {
      const now = Date.now()
      // Insert, or take over a record that has expired: one atomic statement.
      const claimed = await db.insert(t)
        .values({ key, fingerprint, response: null, expiresAt: now + lockMs })
        .onConflictDoUpdate({
          target: t.key,
          set: { fingerprint, response: null, expiresAt: now + lockMs },
          setWhere: lt(t.expiresAt, now)
        })
        .returning({ key: t.key })
      if (claimed.length > 0) return null
      const [existing] = await db.select({ fingerprint: t.fingerprint, response: t.response }).from(t).where(eq(t.key, key))
      return existing ?? { fingerprint, response: null }
    },
    async complete (key, record, ttlMs) {
      await db.update(t)
        .set({ fingerprint: record.fingerprint, response: record.response, expiresAt: Date.now() + ttlMs })
        .where(eq(t.key, key))
    },
    async release (key) {
      await db.delete(t).where(and(eq(t.key, key), sql`${t.response} is null`))
    }
  }
}

/** How often expired database records are swept. */
const SWEEP_INTERVAL_MS = 10 * 60_000

async function idempotencyStorePlugin (fastify: FastifyInstance) {
  if (fastify.redis) {
    fastify.decorate('idempotencyStore', redisIdempotencyStore(fastify.redis, `${fastify.config.REDIS_PREFIX}idem:`))
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
