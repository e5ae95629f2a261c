// @fastify/rate-limit ships its stores untyped; lib/rate-limit-store.ts builds on them.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => unknown
  export default LocalStore
}
declare module '@fastify/rate-limit/store/RedisStore.js' {
  const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown,
    key?: string) => unknown
  export default RedisStore
}
