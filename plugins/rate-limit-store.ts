// The @fastify/rate-limit store on Redis: the library's fixed window (INCR, and
// PEXPIRE on the first hit), plus the API-key revocation epoch read in the same
// script, so confirming a cached key costs no extra round trip (see
// api-key-cache.ts). A missing epoch (a new or emptied Redis) is created fresh,
// which makes every instance look its keys up again.
import type { FastifyRateLimitOptions, FastifyRateLimitStore } from '@fastify/rate-limit'
import type { Redis } from 'ioredis'
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

/** A store class for @fastify/rate-limit's `store` option, bound to this Redis and key cache. */
export function redisRateLimitStore (redis: Redis, prefix: string, keyCache: ApiKeyCache): new (options: FastifyRateLimitOptions) => FastifyRateLimitStore {
  redis.defineCommand('rateLimitWindowAndEpoch', { numberOfKeys: 2, lua: windowAndEpoch })
  const run = (redis as unknown as { rateLimitWindowAndEpoch: WindowAndEpoch }).rateLimitWindowAndEpoch.bind(redis)
  const epochKey = revocationEpochKey(prefix)

  class RedisWindowStore implements FastifyRateLimitStore {
    constructor (_options: FastifyRateLimitOptions, private readonly windowPrefix = `${prefix}rl:`) {}

    incr (key: string, callback: (error: Error | null, result?: { current: number, ttl: number }) => void, timeWindow: number) {
      const seq = keyCache.sending()
      run(this.windowPrefix + key, epochKey, timeWindow).then(([current, ttl, epoch]) => {
        keyCache.observe(seq, epoch)
        callback(null, { current, ttl })
      }, (err: Error) => callback(err))
    }

    child (routeOptions: { method: string | string[], url: string }): FastifyRateLimitStore {
      return new RedisWindowStore({}, `${this.windowPrefix}${String(routeOptions.method)}${routeOptions.url}-`)
    }
  }
  return RedisWindowStore
}
