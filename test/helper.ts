// Builds the app for tests, on the file's own Postgres database and the shared
// Redis, and gives shortcuts for the fixtures every test needs (a shop and key).
import tap from 'tap'
import type { InjectOptions, Response as LightMyRequestResponse } from 'light-my-request'
import { buildApp, serverOptions } from '../app.js'
import { CompileCache } from '../lib/compile-cache.js'
import { driftProblems } from './fixtures/openapi-drift.js'
import { loadConfig, type Config } from '../plugins/config.js'
import { createTestDatabase, testRedisPrefix, testRedisUrl, withDatabase } from './fixtures/databases.js'
import { tcpRelay, viaRelay, type TcpRelay } from './fixtures/tcp-relay.js'
import { processLogFile, recordSecrets } from './fixtures/log-sweep.js'
import { openSync, writeSync } from 'node:fs'

export type App = Awaited<ReturnType<typeof buildApp>>
type Test = { teardown: (fn: () => unknown) => void, fail: (message: string) => unknown }

export const INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef'
export const internalHeaders = { authorization: `Bearer ${INTERNAL_TOKEN}` }

let database: ReturnType<typeof createTestDatabase> | undefined

/**
 * The apps of one test file share the validators and serializers compiled for
 * their schemas (lib/compile-cache.ts): each later app builds in about a third of
 * the CPU. The files that call buildApp themselves (and every server process a
 * test starts) still compile their own, as the service does.
 */
const compileCache = new CompileCache()

/** This test file's database, created on first use and dropped (with its Redis keys) when the file ends. */
export function fileDatabaseUrl (): Promise<string> {
  if (!database) {
    database = createTestDatabase()
    tap.teardown(async () => { await (await database!).drop() })
  }
  return database.then((d) => d.url)
}

/**
 * TEST_DATABASE_POOLER_URL (set by .ci/pgbouncer.sh): the apps reach the file's
 * database through that transaction pooler, and Postgres itself as DATABASE_DIRECT_URL.
 */
export function throughPooler (databaseUrl: string): { DATABASE_URL: string, DATABASE_DIRECT_URL?: string } {
  const pooler = process.env.TEST_DATABASE_POOLER_URL
  if (!pooler) return { DATABASE_URL: databaseUrl }
  return { DATABASE_URL: withDatabase(pooler, new URL(databaseUrl).pathname.slice(1)), DATABASE_DIRECT_URL: databaseUrl }
}

export async function testConfig (overrides: Partial<Config> = {}): Promise<Config> {
  const databaseUrl = await fileDatabaseUrl()
  return loadConfig({}, {
    ...throughPooler(databaseUrl),
    REDIS_URL: testRedisUrl(),
    // Instances of one test file share their Redis windows and records; files do not.
    REDIS_PREFIX: testRedisPrefix(new URL(databaseUrl).pathname.slice(1)),
    INTERNAL_TOKEN,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://files.test',
    DB_POOL_MAX: 5,
    // Test files share a busy machine, and an embedded database blocks the loop while
    // it starts: shedding by event-loop delay would refuse requests at random. The
    // load-shedding test sets its own limits.
    PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0,
    // A server database refuses to start without the values key (docs/security.md): a
    // test that needs sealed values gives its key; the others store values in clear.
    VALUES_IN_CLEAR: true,
    ...overrides
  })
}

let logFile: { write: (line: string) => void } | undefined

/**
 * Where the apps of this test process log: at trace, into the run's log directory,
 * which the log sweep searches for secrets after the run (test/fixtures/log-sweep.ts).
 */
function sweptLogger (config: Config) {
  if (!logFile) {
    const fd = openSync(processLogFile(), 'a')
    logFile = { write: (line) => { writeSync(fd, line) } }
    recordSecrets('', [INTERNAL_TOKEN])
  }
  return { ...(serverOptions(config).logger as object), level: 'trace', stream: logFile }
}

/**
 * A fresh app instance, closed when the test `t` ends; every response it gives
 * through inject is drift-checked, and the secrets in it are recorded for the log sweep.
 */
export async function build (t: Test, overrides: Partial<Config> = {}): Promise<App> {
  const config = await testConfig(overrides)
  const app = await buildApp({ config, compileCache }, { logger: sweptLogger(config) })
  t.teardown(() => app.close())
  checkResponsesAgainstDocument(t, app, config)
  return app
}

/**
 * An app on an in-memory embedded database (PGlite, no Redis), as the embedded
 * default runs, with `overrides` on top; closed when `t` ends.
 */
export async function buildEmbedded (t: Test, overrides: Partial<Config> = {}): Promise<App> {
  const config = loadConfig({}, { DATA_DIR: 'memory://', INTERNAL_TOKEN, LOG_LEVEL: 'silent', PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0, ...overrides })
  const app = await buildApp({ config, compileCache })
  t.teardown(() => app.close())
  return app
}

/**
 * The OpenAPI documents an app publishes depend only on its config (which routes,
 * which servers): apps of one file built with an equal config share them, made
 * once (two documents cost ~150 ms of CPU an app).
 */
const documentsByConfig = new Map<string, Record<string, Record<string, unknown>>>()
function publishedDocuments (app: App, config: Config) {
  const key = JSON.stringify(config)
  let documents = documentsByConfig.get(key)
  if (!documents) {
    documents = { seller: app.swagger(), operator: app.internalSwagger() } as Record<string, Record<string, unknown>>
    documentsByConfig.set(key, documents)
  }
  return documents
}

/**
 * Holds every response `app.inject(options)` returns to the OpenAPI documents
 * the app publishes (test/fixtures/openapi-drift.ts); a mismatch fails `t`.
 */
function checkResponsesAgainstDocument (t: Test, app: App, config: Config) {
  const documents = publishedDocuments(app, config)
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>
  app.inject = (async (options: InjectOptions | string) => {
    const res = await inject(options)
    recordSecrets(res.body)
    const method = typeof options === 'string' ? 'GET' : (options.method ?? 'GET')
    const url = typeof options === 'string' ? options : String(options.url ?? options.path ?? '/')
    for (const problem of driftProblems(documents, method, url, { statusCode: res.statusCode, headers: res.headers, body: res.body })) {
      t.fail(`the response differs from the OpenAPI document: ${problem}`)
    }
    return res
  }) as App['inject']
}

/**
 * An app whose database connection runs through a TCP relay the test can cut and
 * restore (test/fixtures/tcp-relay.ts), to see the app while Postgres is away.
 */
export async function buildBehindDatabaseRelay (t: Test, overrides: Partial<Config> = {}): Promise<{ app: App, relay: TcpRelay, databaseUrl: string }> {
  const databaseUrl = await fileDatabaseUrl()
  const relayTo = async (url: string) => {
    const target = new URL(url)
    const relay = await tcpRelay(target.hostname, Number(target.port || 5432))
    t.teardown(relay.cut)
    return relay
  }
  const { DATABASE_URL: url, DATABASE_DIRECT_URL: directUrl } = throughPooler(databaseUrl)
  if (directUrl === undefined) {
    const relay = await relayTo(url)
    const app = await build(t, { ...overrides, DATABASE_URL: viaRelay(url, relay) })
    return { app, relay, databaseUrl }
  }
  // Behind a pooler: one relay for the pooler, one for the direct connection, cut together.
  const [pooled, direct] = [await relayTo(url), await relayTo(directUrl)]
  const app = await build(t, { ...overrides, DATABASE_URL: viaRelay(url, pooled), DATABASE_DIRECT_URL: viaRelay(directUrl, direct) })
  return { app, relay: bothRelays(pooled, direct), databaseUrl }
}

/** Two relays acting as one. */
function bothRelays (a: TcpRelay, b: TcpRelay): TcpRelay {
  return {
    port: a.port,
    cut: async () => { await Promise.all([a.cut(), b.cut()]) },
    restore: async () => { await Promise.all([a.restore(), b.restore()]) },
    pause: () => { a.pause(); b.pause() },
    pauseOn: (matches) => { a.pauseOn(matches); b.pauseOn(matches) },
    resume: () => { a.resume(); b.resume() },
    countFromApp: (matches) => {
      const [ca, cb] = [a.countFromApp(matches), b.countFromApp(matches)]
      return { get count () { return ca.count + cb.count } }
    },
    get paused () { return a.paused || b.paused }
  }
}

export interface ShopFixture {
  shopId: string
  keyId: string
  apiKey: string
  /** Headers authenticating as this shop. */
  headers: { authorization: string }
}

/** Creates a shop and an API key through the operator API. */
export async function createShop (app: App, name = 'Test shop'): Promise<ShopFixture> {
  const shop = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internalHeaders, payload: { name } })
  if (shop.statusCode !== 201) throw new Error(`create shop: ${shop.statusCode} ${shop.body}`)
  const shopId = shop.json().data.shop.id
  const key = await app.inject({ method: 'POST', url: `/internal/v1/shops/${shopId}/api-keys`, headers: internalHeaders, payload: { name: 'test' } })
  if (key.statusCode !== 201) throw new Error(`create key: ${key.statusCode} ${key.body}`)
  const { apiKey, secret } = key.json().data
  return { shopId, keyId: apiKey.id, apiKey: secret, headers: { authorization: `Bearer ${secret}` } }
}

/** Sets a currency rate for a shop through the operator API; returns the rate's id. */
export async function setRate (app: App, shopId: string, code: string, rate: number): Promise<string> {
  const res = await app.inject({ method: 'PUT', url: `/internal/v1/shops/${shopId}/currency-rates/${code}`, headers: internalHeaders, payload: { rate } })
  if (res.statusCode !== 200) throw new Error(`set rate: ${res.statusCode} ${res.body}`)
  return res.json().data.rate.id
}

/** The first seeded category with a filter (and its first option), for product fixtures. */
export async function categoryWithFilter (app: App, headers: ShopFixture['headers']) {
  const res = await app.inject({ method: 'GET', url: '/v1/categories', headers })
  const categories = res.json().data.categories as Array<{ id: string, pathEn: string, filters: Array<{ id: string, options: Array<{ id: string }> }> }>
  return categories.find((c) => c.filters.length > 0)!
}
