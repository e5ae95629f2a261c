// Service configuration: read once from the environment, validated against a
// TypeBox schema, so a bad value stops the process with a message naming it.
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import envSchema from 'env-schema'
import { DEFAULT_RETRY_SCHEDULE, RETRY_SCHEDULE_PATTERN } from '../domain/webhook-retry.js'
import { StringEnum } from '../schemas/common.js'

export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  REDIS_PREFIX: Type.String({ pattern: '^[A-Za-z0-9:_.-]{1,64}$', default: 'seller-api:' }),
  INTERNAL_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  PUBLIC_BASE_URL: Type.String({ pattern: '^https?://[^\\s]+[^/\\s]$', default: 'http://127.0.0.1:3000' }),
  RATE_LIMIT_MAX: Type.Integer({ minimum: 1, default: 300 }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
  IDEMPOTENCY_TTL_S: Type.Integer({ minimum: 1, default: 86_400 }),
  TRUST_PROXY: Type.Union([Type.Boolean(), Type.Integer({ minimum: 0 }), Type.String({ minLength: 1 })], { default: false }),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  WEBHOOK_ALLOW_HTTP: Type.Boolean({ default: false }),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  WEBHOOK_RETRY_SCHEDULE: Type.String({ pattern: RETRY_SCHEDULE_PATTERN, maxLength: 1000, default: DEFAULT_RETRY_SCHEDULE }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 4 }),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 200 })
})

export type Config = Static<typeof ConfigSchema>

/**
 * Parses `env` (default: process.env). Empty strings count as unset, so that
 * `DATABASE_URL=` in a shell or compose file means "use the embedded default".
 * Throws an Error whose message names every bad variable.
 */
export function loadConfig (env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const data: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') data[key] = value
  }
  Object.assign(data, overrides)
  try {
    return envSchema<Config>({ schema: structuredClone(ConfigSchema), data, env: false })
  } catch (err) {
    throw new Error(`Invalid configuration: ${(err as Error).message}`)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

async function configPlugin (fastify: FastifyInstance, options: { config: Config }) {
  fastify.decorate('config', options.config)
}

export default fp(configPlugin, { name: 'config' })
