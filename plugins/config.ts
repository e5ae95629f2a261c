// Service configuration: read once from the environment and validated against a
// TypeBox schema. A bad value stops the process with one line per variable,
// naming it and the values it accepts; nothing is left for a library to reject later.
import proxyAddr from '@fastify/proxy-addr'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import envSchema from 'env-schema'
import {
  DEFAULT_DELIVERY_RETRY_SCHEDULE, DEFAULT_RETRY_SCHEDULE,
  RETRY_SCHEDULE_PATTERN
} from '../domain/webhook-retry.js'
import { StringEnum } from '../schemas/common.js'

/** host:port, host:port, … (a host may be an [IPv6] address). */
const SENTINEL = '(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):\\d{1,5}'
const SENTINELS_PATTERN = `^\\s*${SENTINEL}\\s*(,\\s*${SENTINEL}\\s*)*$`
/** Base64 of exactly 32 bytes (docs/security.md). */
const VALUES_KEY_PATTERN = '^[A-Za-z0-9+/]{43}=$'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

// Each `description` is what the error message says the variable accepts.
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'an integer from 0 to 65535' }),
  HOST: Type.String({ pattern: '^\\S+$', default: '127.0.0.1', description: 'an address or host name to listen on' }),
  DATABASE_URL: Type.Optional(Type.String({
    pattern: '^postgres(ql)?://',
    description: 'a postgres:// or postgresql:// URL'
  })),
  DATABASE_DIRECT_URL: Type.Optional(Type.String({
    pattern: '^postgres(ql)?://',
    description: 'a postgres:// or postgresql:// URL of a session connection (not a transaction pooler)'
  })),
  DB_PREPARED_STATEMENTS: StringEnum(['auto', 'on', 'off'] as const,
    { default: 'auto', description: 'auto, on or off' }),
  DATA_DIR: Type.String({ pattern: '^\\S', default: './data', description: 'a directory path' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'a redis:// or rediss:// URL' })),
  REDIS_SENTINELS: Type.Optional(Type.String({
    pattern: SENTINELS_PATTERN,
    description: 'comma-separated host:port of Redis Sentinels'
  })),
  REDIS_SENTINEL_NAME: Type.Optional(Type.String({
    pattern: '^\\S+$',
    description: 'the name the Sentinels monitor the primary under'
  })),
  REDIS_PREFIX: Type.String({
    pattern: '^[A-Za-z0-9:_.-]{1,64}$',
    default: 'seller-api:',
    description: '1–64 characters of letters, digits and :_.-'
  }),
  INTERNAL_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'a token of at least 16 characters' })),
  VALUES_ENCRYPTION_KEY: Type.Optional(Type.String({
    pattern: VALUES_KEY_PATTERN,
    description: 'the base64 of 32 bytes (openssl rand -base64 32)'
  })),
  VALUES_ENCRYPTION_KEY_PREVIOUS: Type.Optional(Type.String({
    pattern: VALUES_KEY_PATTERN,
    description: 'the base64 of 32 bytes: the key VALUES_ENCRYPTION_KEY replaced'
  })),
  /** Deprecated names of the two above, from when the key covered stock only (lib/embedded/stock-key.ts). */
  STOCK_ENCRYPTION_KEY: Type.Optional(Type.String({
    pattern: VALUES_KEY_PATTERN,
    description: 'the base64 of 32 bytes (deprecated: set VALUES_ENCRYPTION_KEY instead)'
  })),
  STOCK_ENCRYPTION_KEY_PREVIOUS: Type.Optional(Type.String({
    pattern: VALUES_KEY_PATTERN,
    description: 'the base64 of 32 bytes (deprecated: set VALUES_ENCRYPTION_KEY_PREVIOUS instead)'
  })),
  VALUES_IN_CLEAR: Type.Boolean({
    default: false,
    description: 'true or false: with DATABASE_URL and no VALUES_ENCRYPTION_KEY, start anyway and store ' +
      'delivered values in clear (not recommended)'
  }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({
    pattern: '^https?://[^\\s]+[^/\\s]$',
    description: 'an http:// or https:// URL without a trailing slash'
  })),
  PORTAL_FRAME_ANCESTORS: Type.Optional(Type.String({
    pattern: '^\\s*https?://[^\\s,/]+\\s*(,\\s*https?://[^\\s,/]+\\s*)*$',
    description: 'comma-separated origins (https://market.example) that may show the seller portal in a frame'
  })),
  RATE_LIMIT_MAX: Type.Integer({ minimum: 1, default: 300, description: 'an integer of at least 1' }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description: 'an integer of at least 1000 (milliseconds)'
  }),
  PUBLIC_RATE_LIMIT_MAX: Type.Integer({
    minimum: 1,
    default: 600,
    description: 'an integer of at least 1 (requests per client IP per RATE_LIMIT_WINDOW_MS)'
  }),
  PORTAL_RATE_LIMIT_MAX: Type.Integer({
    minimum: 1,
    default: 60,
    description: 'an integer of at least 1 (changes per seller portal session per minute)'
  }),
  MEDIA_CACHE_MB: Type.Integer({
    minimum: 0,
    maximum: 4096,
    default: 64,
    description: 'an integer from 0 to 4096 (MiB; 0 turns the cache off)'
  }),
  IDEMPOTENCY_TTL_S: Type.Integer({ minimum: 1, default: 86_400, description: 'an integer of at least 1 (seconds)' }),
  TRUST_PROXY: Type.Union([Type.Boolean(), Type.String({ minLength: 1 })], {
    default: false,
    description: 'true, false, or comma-separated addresses / CIDRs of your load balancers (also loopback, ' +
      'linklocal, uniquelocal)'
  }),
  LOG_LEVEL: StringEnum(LOG_LEVELS, { default: 'info', description: `one of ${LOG_LEVELS.join(', ')}` }),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'an integer from 1 to 200' }),
  METRICS_PORT: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 65535,
    description: 'an integer from 1 to 65535, other than PORT'
  })),
  METRICS_HOST: Type.Optional(Type.String({ pattern: '^\\S+$', description: 'an address to serve /metrics on' })),
  PRESSURE_MAX_EVENT_LOOP_DELAY_MS: Type.Optional(Type.Integer({
    minimum: 0,
    description: 'an integer of at least 0 (milliseconds; 0 turns the check off)'
  })),
  PRESSURE_MAX_HEAP_USED_MB: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'an integer of at least 0 (MiB; 0 turns the check off)'
  }),
  PRESSURE_MAX_RSS_MB: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'an integer of at least 0 (MiB; 0 turns the check off)'
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 30_000,
    description: 'an integer of at least 1000 (milliseconds)'
  }),
  HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 10_000,
    description: 'an integer of at least 1000 (milliseconds), at most REQUEST_TIMEOUT_MS'
  }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 72_000,
    description: 'an integer of at least 1000 (milliseconds)'
  }),
  SHUTDOWN_DRAIN_MS: Type.Integer({
    minimum: 0,
    maximum: 300_000,
    default: 5000,
    description: 'an integer from 0 to 300000 (milliseconds; 0 turns the drain off)'
  }),
  EVENT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: 'an integer from 1 to 3650 (days)'
  }),
  WEBHOOK_ALLOW_HTTP: Type.Boolean({ default: false, description: 'true or false (development and tests only)' }),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({ default: false, description: 'true or false (development and tests only)' }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: 'an integer from 100 to 60000 (milliseconds)'
  }),
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    pattern: RETRY_SCHEDULE_PATTERN,
    maxLength: 1000,
    default: DEFAULT_RETRY_SCHEDULE,
    description: 'comma-separated delays in seconds between attempts, e.g. 5,300,1800'
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 64,
    description: 'an integer from 1 to 1000'
  }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 4,
    description: 'an integer from 1 to 100'
  }),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 200,
    description: 'an integer from 10 to 60000 (milliseconds)'
  }),
  DELIVERY_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: 'an integer from 100 to 60000 (milliseconds)'
  }),
  DELIVERY_RETRY_SCHEDULE: Type.String({
    pattern: RETRY_SCHEDULE_PATTERN,
    maxLength: 1000,
    default: DEFAULT_DELIVERY_RETRY_SCHEDULE,
    description: 'comma-separated delays in seconds between attempts, e.g. 5,30'
  }),
  // Claims (docs/claims.md): the shop's time to answer, the buyer's window, how often every instance looks for
  // due claims.
  CLAIM_RESPONSE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 31_536_000,
    default: 172_800,
    description: 'an integer from 1 to 31536000 (seconds)'
  }),
  CLAIM_WINDOW_DAYS: Type.Integer({
    minimum: 0,
    maximum: 3650,
    default: 7,
    description: 'an integer from 0 to 3650 (days)'
  }),
  CLAIM_SWEEP_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 30_000,
    default: 10_000,
    description: 'an integer from 10 to 30000 (milliseconds)'
  }),
  // Chat rules (docs/chat-rules.md): how often every instance posts the due `order.unconfirmed` reminders.
  CHAT_RULE_SWEEP_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 30_000,
    default: 10_000,
    description: 'an integer from 10 to 30000 (milliseconds)'
  })
})

export type Config = Static<typeof ConfigSchema> & { PUBLIC_BASE_URL: string, PRESSURE_MAX_EVENT_LOOP_DELAY_MS: number }

/**
 * Shedding by event-loop delay is on (1 s) with Postgres and off on the embedded
 * database: PGlite runs every query on the event loop, so there the delay measures
 * the service's own database work (a start's migrations, a big page), not overload.
 */
const defaultMaxEventLoopDelayMs = (databaseUrl: string | undefined) => databaseUrl ? 1000 : 0

type VariableName = keyof typeof ConfigSchema.properties

/** Values that are never echoed back in an error: they may hold passwords. */
const SECRET_VARIABLES = new Set<string>(['DATABASE_URL', 'DATABASE_DIRECT_URL', 'REDIS_URL', 'INTERNAL_TOKEN',
  'VALUES_ENCRYPTION_KEY', 'VALUES_ENCRYPTION_KEY_PREVIOUS', 'STOCK_ENCRYPTION_KEY', 'STOCK_ENCRYPTION_KEY_PREVIOUS'])

/**
 * A server database fails closed: without the values key its backups would hold every
 * delivered code in clear (docs/security.md, "A server database without a key").
 */
const VALUES_KEY_REQUIRED = 'Invalid configuration: VALUES_ENCRYPTION_KEY is not set, and DATABASE_URL is. ' +
  'It seals delivered values and stock at rest: make one with `openssl rand -base64 32`, give every instance ' +
  'the same one, and keep it out of the database\'s backups (docs/security.md). To start anyway and store ' +
  'values in clear (not recommended), set VALUES_IN_CLEAR=true.'

export class ConfigError extends Error {
  readonly problems: string[]
  constructor (problems: string[]) {
    super(problems.join('\n'))
    this.name = 'ConfigError'
    this.problems = problems
  }
}

function problem (name: string, value: unknown, expected?: string): string {
  const shown = SECRET_VARIABLES.has(name) ? '(value hidden)' : JSON.stringify(String(value))
  const accepted = expected ?? ConfigSchema.properties[name as VariableName]?.description ?? 'a valid value'
  return `Invalid configuration: ${name}=${shown}: expected ${accepted}.`
}

/**
 * Fastify hands TRUST_PROXY to proxy-addr, which throws on anything but
 * addresses and CIDRs; a bare hop count trusts no proxy at all in Fastify 5
 * (it fails closed), so it is refused here rather than silently ignored.
 */
function trustProxyProblem (value: string): string | null {
  const entries = value.split(',').map((entry) => entry.trim())
  if (entries.some((entry) => /^\d+$/.test(entry))) {
    return problem('TRUST_PROXY', value, 'true, false, or the addresses / CIDRs of your load balancers (a hop ' +
      'count trusts no proxy in Fastify 5)')
  }
  try {
    proxyAddr.compile(entries)
    return null
  } catch {
    return problem('TRUST_PROXY', value)
  }
}

/** `http://HOST:PORT`, with a wildcard listening address shown as the loopback one. */
export function defaultPublicBaseUrl (host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}

/**
 * Parses `env` (default: process.env). Empty strings count as unset, so that
 * `DATABASE_URL=` in a shell or compose file means "use the embedded default".
 * Throws a ConfigError with one line per bad variable.
 */
export function loadConfig (
  env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}
): Config {
  const data: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') data[key] = value
  }
  Object.assign(data, overrides)
  const raw = { ...data }
  let config: Static<typeof ConfigSchema>
  try {
    config = envSchema<Static<typeof ConfigSchema>>({ schema: structuredClone(ConfigSchema), data, env: false })
  } catch (err) {
    const names = new Set(((err as { errors?: Array<{ instancePath: string }> }).errors ?? [])
      .map((e) => e.instancePath.split('/')[1])
      .filter(Boolean))
    if (names.size === 0) throw new ConfigError([`Invalid configuration: ${(err as Error).message}`])
    throw new ConfigError([...names].map((name) => problem(name, raw[name])))
  }
  const problems: string[] = []
  if (typeof config.TRUST_PROXY === 'string') {
    const trust = trustProxyProblem(config.TRUST_PROXY)
    if (trust) problems.push(trust)
  }
  if (config.DATABASE_DIRECT_URL !== undefined && config.DATABASE_URL === undefined) {
    problems.push(problem('DATABASE_DIRECT_URL', config.DATABASE_DIRECT_URL, 'to be set only with DATABASE_URL'))
  }
  if ((config.REDIS_SENTINELS === undefined) !== (config.REDIS_SENTINEL_NAME === undefined)) {
    const [name, value] = config.REDIS_SENTINELS === undefined
      ? ['REDIS_SENTINEL_NAME',
          config.REDIS_SENTINEL_NAME]
      : ['REDIS_SENTINELS', config.REDIS_SENTINELS]
    problems.push(problem(name, value, 'REDIS_SENTINELS and REDIS_SENTINEL_NAME to be set together'))
  }
  for (
    const [name, deprecated] of [['VALUES_ENCRYPTION_KEY', 'STOCK_ENCRYPTION_KEY'],
      ['VALUES_ENCRYPTION_KEY_PREVIOUS', 'STOCK_ENCRYPTION_KEY_PREVIOUS']] as const
  ) {
    if (config[name] !== undefined && config[deprecated] !== undefined && config[name] !== config[deprecated]) {
      problems.push(problem(deprecated, config[deprecated], `to be unset, or equal to ${name} (its new name), ` +
        'which is set to another key'))
    }
  }
  const valuesKey = config.VALUES_ENCRYPTION_KEY ?? config.STOCK_ENCRYPTION_KEY
  if (config.DATABASE_URL !== undefined && valuesKey === undefined && !config.VALUES_IN_CLEAR) {
    problems.push(VALUES_KEY_REQUIRED)
  }
  if (config.METRICS_PORT !== undefined && config.METRICS_PORT === config.PORT) {
    problems.push(problem('METRICS_PORT', config.METRICS_PORT))
  }
  // Node refuses a headers timeout longer than the whole request's.
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) {
    problems.push(problem('HEADERS_TIMEOUT_MS', config.HEADERS_TIMEOUT_MS))
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return {
    ...config,
    PUBLIC_BASE_URL: config.PUBLIC_BASE_URL ?? defaultPublicBaseUrl(config.HOST, config.PORT),
    PRESSURE_MAX_EVENT_LOOP_DELAY_MS:
      config.PRESSURE_MAX_EVENT_LOOP_DELAY_MS ?? defaultMaxEventLoopDelayMs(config.DATABASE_URL)
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
