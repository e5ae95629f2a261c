// The rate limiter's store. With Redis: the library's fixed window (INCR, and
// PEXPIRE on the first hit) plus the API-key revocation epoch read in the same
// script, so confirming a cached key costs no extra round trip (see
// api-key-cache.ts); a missing epoch (a new or emptied Redis) is created fresh,
// which makes every instance look its keys up again. While Redis' breaker is
// open, windows live in this process' memory instead: limits fail open, no
// request waits on a Redis known to be down, and no cached key is confirmed (so
// keys are looked up in the database).
import type { FastifyRateLimitOptions, FastifyRateLimitStore } from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import type { Redis } from 'ioredis'
import type { CircuitBreaker } from '../domain/circuit-breaker.js'
import { revocationEpochKey, type ApiKeyCache } from './api-key-cache.js'

const windowAndEpoch = `
local current = redis.call('INCR', KEYS[1])
local ttl
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
else
  ttl = redis.call('PTTL', KEYS[1])
end
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  local now = redis.call('TIME')
  epoch = 'since-' .. now[1] .. '.' .. now[2]
  redis.call('SET', KEYS[2], epoch)
end
return {current, ttl, epoch}
`

type WindowAndEpoch = (windowKey: string, epochKey: string, windowMs: number) => Promise<[number, number, string]>
type Callback = (error: Error | null, result?: { current: number, ttl: number }) => void
type RouteOptions = { method: string | string[], url: string }

/** A store class for @fastify/rate-limit's `store` option (plain fixed windows: no continueExceeding, no backoff). */
export function redisRateLimitStore (
  redis: Redis, breaker: CircuitBreaker, prefix: string, keyCache: ApiKeyCache
): new (options: FastifyRateLimitOptions) => FastifyRateLimitStore {
  redis.defineCommand('rateLimitWindowAndEpoch', { numberOfKeys: 2, lua: windowAndEpoch })
  const run = (redis as unknown as { rateLimitWindowAndEpoch: WindowAndEpoch }).rateLimitWindowAndEpoch.bind(redis)
  const epochKey = revocationEpochKey(prefix)

  class RedisOrMemoryStore implements FastifyRateLimitStore {
    private readonly windowPrefix: string
    private readonly memory: FastifyRateLimitStore

    constructor (
      _options: FastifyRateLimitOptions,
      windowPrefix = `${prefix}rl:`,
      memory: FastifyRateLimitStore = new LocalStore(false, false) as FastifyRateLimitStore
    ) {
      this.windowPrefix = windowPrefix
      this.memory = memory
    }

    incr (key: string, callback: Callback, timeWindow: number, max: number) {
      if (breaker.state !== 'closed') return this.memory.incr(key, callback, timeWindow, max)
      const seq = keyCache.sending()
      run(this.windowPrefix + key, epochKey, timeWindow).then(([current, ttl, epoch]) => {
        keyCache.observe(seq, epoch)
        callback(null, { current, ttl })
      }, (err: Error) => {
        breaker.trip(err)
        this.memory.incr(key, callback, timeWindow, max)
      })
    }

    child (routeOptions: RouteOptions): FastifyRateLimitStore {
      return new RedisOrMemoryStore({}, `${this.windowPrefix}${String(routeOptions.method)}${routeOptions.url}-`,
        (this.memory as unknown as { child: (o: RouteOptions) => FastifyRateLimitStore }).child(routeOptions))
    }
  }
  return RedisOrMemoryStore
}
