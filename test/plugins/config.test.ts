// Configuration: every variable refuses a bad value with one line naming it and
// what it accepts; the server exits 1 with that line, and with one line when
// the database is unreachable or missing.
import { spawn } from 'node:child_process'
import t from 'tap'
import { ConfigError, ConfigSchema, loadConfig } from '../../plugins/config.js'
import { repoRoot, SERVER_ARGS } from '../fixtures/cli.js'
import { testDatabaseBaseUrl } from '../fixtures/databases.js'

const badValues: Record<keyof typeof ConfigSchema.properties, string> = {
  PORT: '70000',
  HOST: ' ',
  DATABASE_URL: 'mysql://user:secret@db/app',
  DATABASE_DIRECT_URL: 'mysql://user:secret@db/app',
  DB_PREPARED_STATEMENTS: 'sometimes',
  DATA_DIR: ' ',
  REDIS_URL: 'memcached://cache',
  REDIS_SENTINELS: 'sentinel-a, sentinel-b:26379',
  REDIS_SENTINEL_NAME: ' ',
  REDIS_PREFIX: 'has spaces',
  INTERNAL_TOKEN: 'short',
  VALUES_ENCRYPTION_KEY: 'not-base64-of-32-bytes',
  VALUES_ENCRYPTION_KEY_PREVIOUS: 'c2hvcnQ=',
  STOCK_ENCRYPTION_KEY: 'not-base64-of-32-bytes',
  STOCK_ENCRYPTION_KEY_PREVIOUS: 'c2hvcnQ=',
  PUBLIC_BASE_URL: 'http://example.com/',
  PORTAL_FRAME_ANCESTORS: 'https://market.example/settings',
  RATE_LIMIT_MAX: '0',
  RATE_LIMIT_WINDOW_MS: '999',
  PUBLIC_RATE_LIMIT_MAX: '0',
  PORTAL_RATE_LIMIT_MAX: '0',
  MEDIA_CACHE_MB: '-1',
  IDEMPOTENCY_TTL_S: 'a day',
  TRUST_PROXY: 'yes',
  LOG_LEVEL: 'verbose',
  DB_POOL_MAX: '500',
  METRICS_PORT: '0',
  METRICS_HOST: ' ',
  PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '-1',
  PRESSURE_MAX_HEAP_USED_MB: '1.5',
  PRESSURE_MAX_RSS_MB: 'lots',
  REQUEST_TIMEOUT_MS: '999',
  HEADERS_TIMEOUT_MS: '40000',
  KEEP_ALIVE_TIMEOUT_MS: 'long',
  SHUTDOWN_DRAIN_MS: '-5',
  EVENT_RETENTION_DAYS: '0',
  WEBHOOK_ALLOW_HTTP: 'maybe',
  WEBHOOK_ALLOW_PRIVATE: 'yes please',
  WEBHOOK_TIMEOUT_MS: '50',
  WEBHOOK_RETRY_SCHEDULE: '5,soon',
  WEBHOOK_CONCURRENCY: '0',
  WEBHOOK_ENDPOINT_CONCURRENCY: '101',
  WEBHOOK_POLL_INTERVAL_MS: '5',
  DELIVERY_TIMEOUT_MS: '60001',
  DELIVERY_RETRY_SCHEDULE: '5,later',
  CLAIM_RESPONSE_SECONDS: '0',
  CLAIM_WINDOW_DAYS: 'a week',
  CLAIM_SWEEP_INTERVAL_MS: '60000',
  VALUES_IN_CLEAR: 'of course',
  CHAT_RULE_SWEEP_INTERVAL_MS: '5'
}

function problems (env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}

t.test('each variable: one line naming it and the values it accepts', async (t) => {
  t.same(Object.keys(badValues).sort(), Object.keys(ConfigSchema.properties).sort(), 'every variable has a case here')
  for (const [name, value] of Object.entries(badValues)) {
    const lines = problems({ [name]: value })
    t.equal(lines.length, 1, `${name}: ${lines.join(' | ')}`)
    t.match(lines[0], new RegExp(`^Invalid configuration: ${name}=.*: expected .+\\.$`), name)
  }
  t.notOk(problems({ DATABASE_URL: 'mysql://user:secret@db/app' })[0].includes('secret'), 'a URL that may hold a password is not echoed')
  t.match(problems({ LOG_LEVEL: 'verbose' })[0], /expected one of fatal, error, warn, info, debug, trace, silent\./)
  t.match(problems({ TRUST_PROXY: '2' })[0], /a hop count trusts no proxy/)
  t.match(problems({ METRICS_PORT: '3000' })[0], /^Invalid configuration: METRICS_PORT="3000": expected .*other than PORT/)
})

const valuesKey = Buffer.alloc(32, 9).toString('base64')
const valuesKeyRequired = /^Invalid configuration: VALUES_ENCRYPTION_KEY is not set, and DATABASE_URL is\. .*`openssl rand -base64 32`.*set VALUES_IN_CLEAR=true\.\s*$/

t.test('a server database needs the values key, or VALUES_IN_CLEAR=true said explicitly', async (t) => {
  const database = 'postgres://app@db/app'
  t.match(problems({ DATABASE_URL: database }), [valuesKeyRequired], 'refused, naming the variable and how to make a key')
  t.same(problems({ DATABASE_URL: database, VALUES_IN_CLEAR: 'false' }), problems({ DATABASE_URL: database }), 'false is no')
  t.equal(loadConfig({ DATABASE_URL: database, VALUES_ENCRYPTION_KEY: valuesKey }).VALUES_IN_CLEAR, false, 'a key')
  t.equal(loadConfig({ DATABASE_URL: database, STOCK_ENCRYPTION_KEY: valuesKey }).STOCK_ENCRYPTION_KEY, valuesKey, 'the old name')
  t.equal(loadConfig({ DATABASE_URL: database, VALUES_IN_CLEAR: 'true' }).VALUES_IN_CLEAR, true, 'in clear, said')
  t.same(problems({}), [], 'the embedded default generates its key')
})

t.test('a pooler and its direct connection; Redis behind Sentinel', async (t) => {
  const pooled = loadConfig({ DATABASE_URL: 'postgres://app@pgbouncer:6432/app', DATABASE_DIRECT_URL: 'postgres://app@postgres:5432/app', DB_PREPARED_STATEMENTS: 'off', VALUES_ENCRYPTION_KEY: valuesKey })
  t.equal(pooled.DATABASE_DIRECT_URL, 'postgres://app@postgres:5432/app')
  t.equal(pooled.DB_PREPARED_STATEMENTS, 'off')
  t.equal(loadConfig({}).DB_PREPARED_STATEMENTS, 'auto')
  t.match(problems({ DATABASE_DIRECT_URL: 'postgres://app:secret@postgres/app' })[0], /^Invalid configuration: DATABASE_DIRECT_URL=\(value hidden\): expected to be set only with DATABASE_URL\.$/)
  const sentinel = loadConfig({ REDIS_SENTINELS: 'sentinel-a:26379, [::1]:26380,10.0.0.3:26381', REDIS_SENTINEL_NAME: 'seller', REDIS_URL: 'rediss://:pw@redis/0' })
  t.equal(sentinel.REDIS_SENTINELS, 'sentinel-a:26379, [::1]:26380,10.0.0.3:26381')
  t.match(problems({ REDIS_SENTINELS: 'sentinel-a:26379' })[0], /^Invalid configuration: REDIS_SENTINELS=.*REDIS_SENTINEL_NAME to be set together\.$/)
  t.match(problems({ REDIS_SENTINEL_NAME: 'seller' })[0], /^Invalid configuration: REDIS_SENTINEL_NAME=.*set together\.$/)
})

t.test('TRUST_PROXY accepts what Fastify can use', async (t) => {
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY, true)
  t.equal(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY, false)
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7, loopback' }).TRUST_PROXY, '10.0.0.0/8, 192.168.1.7, loopback')
  t.match(problems({ TRUST_PROXY: '10.0.0.0/33' })[0], /^Invalid configuration: TRUST_PROXY=/)
})

t.test('shedding by event-loop delay: on with Postgres, off on the embedded database, unless set', async (t) => {
  t.equal(loadConfig({ DATABASE_URL: 'postgres://db/app', VALUES_IN_CLEAR: 'true' }).PRESSURE_MAX_EVENT_LOOP_DELAY_MS, 1000)
  t.equal(loadConfig({}).PRESSURE_MAX_EVENT_LOOP_DELAY_MS, 0)
  t.equal(loadConfig({ PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '250' }).PRESSURE_MAX_EVENT_LOOP_DELAY_MS, 250)
})

t.test('PUBLIC_BASE_URL follows HOST and PORT unless set', async (t) => {
  t.equal(loadConfig({ PORT: '4100' }).PUBLIC_BASE_URL, 'http://127.0.0.1:4100')
  t.equal(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).PUBLIC_BASE_URL, 'http://127.0.0.1:8080')
  t.equal(loadConfig({ HOST: '::1' }).PUBLIC_BASE_URL, 'http://[::1]:3000')
  t.equal(loadConfig({ HOST: 'api.internal', PORT: '4100' }).PUBLIC_BASE_URL, 'http://api.internal:4100')
  t.equal(loadConfig({ PORT: '4100', PUBLIC_BASE_URL: 'https://shop.example' }).PUBLIC_BASE_URL, 'https://shop.example')
})

function startServer (env: Record<string, string>): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, SERVER_ARGS, { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', VALUES_IN_CLEAR: 'true', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => { stdout += chunk })
  child.stderr.on('data', (chunk) => { stderr += chunk })
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

t.test('the server exits 1 with one line for a bad setting or an unusable database', async (t) => {
  const base = new URL(testDatabaseBaseUrl())
  const missing = new URL(base)
  missing.pathname = '/seller_api_no_such_database'
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['TRUST_PROXY=yes', { TRUST_PROXY: 'yes' }, /^Invalid configuration: TRUST_PROXY="yes": expected true, false, or comma-separated addresses/],
    ['LOG_LEVEL=verbose', { LOG_LEVEL: 'verbose' }, /^Invalid configuration: LOG_LEVEL="verbose": expected one of fatal, error/],
    ['unreachable database', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/app' }, /^Start failed: cannot reach the database app at 127\.0\.0\.1:1 \(ECONNREFUSED\)/],
    ['missing database', { DATABASE_URL: missing.toString() }, /^Start failed: the database seller_api_no_such_database at .* does not exist/],
    ['no values key', { DATABASE_URL: missing.toString(), VALUES_IN_CLEAR: '', VALUES_ENCRYPTION_KEY: '', STOCK_ENCRYPTION_KEY: '' }, valuesKeyRequired]
  ]
  const results = await Promise.all(cases.map(([, env]) => startServer(env)))
  cases.forEach(([label, , pattern], i) => {
    const { code, stdout, stderr } = results[i]
    t.equal(code, 1, `${label}: exit 1`)
    t.equal(stderr.trim().split('\n').length, 1, `${label}: one line, no stack: ${stderr}`)
    t.match(stderr, pattern, label)
    t.equal(stdout, '', `${label}: nothing on stdout`)
  })
})
