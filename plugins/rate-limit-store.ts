// The rate limiter's store: Redis windows (shared by every instance) while Redis'
// breaker is closed, this process' memory while it is open. A Redis failure
// opens the breaker and the request is counted in memory instead, so limits
// fail open without any request waiting on a Redis known to be down.
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { Redis } from 'ioredis'
import type { CircuitBreaker } from '../domain/circuit-breaker.js'

type Callback = (err: Error | null, result?: { current: number, ttl: number }) => void
type Method = 'incr' | 'read'

/** The store contract of @fastify/rate-limit (its stores are not typed). */
interface Store {
  incr: (key: string, callback: Callback, timeWindow: number, max: number) => void
  read: (key: string, callback: Callback, timeWindow: number, max: number) => void
  child: (routeOptions: unknown) => Store
}

class RedisOrMemoryStore implements Store {
  constructor (private readonly redis: Store, private readonly memory: Store, private readonly breaker: CircuitBreaker) {}

  incr (key: string, callback: Callback, timeWindow: number, max: number) { this.use('incr', key, callback, timeWindow, max) }
  read (key: string, callback: Callback, timeWindow: number, max: number) { this.use('read', key, callback, timeWindow, max) }

  child (routeOptions: unknown): Store {
    return new RedisOrMemoryStore(this.redis.child(routeOptions), this.memory.child(routeOptions), this.breaker)
  }

  private use (method: Method, key: string, callback: Callback, timeWindow: number, max: number) {
    if (this.breaker.state !== 'closed') return this.memory[method](key, callback, timeWindow, max)
    this.redis[method](key, (err, result) => {
      if (!err) return callback(null, result)
      this.breaker.trip(err)
      this.memory[method](key, callback, timeWindow, max)
    }, timeWindow, max)
  }
}

/** A store class for @fastify/rate-limit's `store` option (plain fixed windows: no continueExceeding, no backoff). */
export function redisOrMemoryStore (redis: Redis, breaker: CircuitBreaker, nameSpace: string): FastifyRateLimitStoreCtor {
  return class extends RedisOrMemoryStore {
    constructor () {
      super(new RedisStore(false, false, redis, nameSpace) as Store, new LocalStore(false, false) as Store, breaker)
    }
  }
}
