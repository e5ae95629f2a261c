// Test databases: real Postgres (TEST_DATABASE_URL, else DATABASE_URL, else the
// local server). Each test file works in its own clone of a migrated template,
// so files run in parallel and reruns start clean. Every name starts with
// TEST_DATABASE_PREFIX (default seller_api_), so runs sharing a server with
// other projects keep to their own names; and a run only ever drops the
// databases and Redis keys it created itself (names carry the run's id).
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import postgres from 'postgres'
import { LOCAL_DATABASE_URL, LOCAL_REDIS_URL } from './fixtures/local-servers.js'

const migrationsDir = fileURLToPath(new URL('../db/migrations/', import.meta.url))

export function testDatabasePrefix (): string {
  const prefix = process.env.TEST_DATABASE_PREFIX || 'seller_api_'
  if (!/^[a-z_][a-z0-9_]{0,29}$/.test(prefix)) {
    throw new Error(`TEST_DATABASE_PREFIX="${prefix}": expected 1–30 characters of a-z, 0-9 and _, not starting with a digit.`)
  }
  return prefix
}

/**
 * The test run: tap starts the before/after scripts and every test file from
 * one runner process, so their parent pid names the run.
 */
export const testRunId = () => process.ppid

/** Names of this run's per-file databases (and the Redis prefixes derived from them). */
export const runDatabasePattern = (runId: number) => new RegExp(`^${testDatabasePrefix()}t_${runId}_\\d+_[0-9a-f]+$`)

/** The Redis prefix of a test file's apps: its database's name, so cleanup knows whose keys are whose. */
export const testRedisPrefix = (database: string) => `test:${database}:`
/** Every Redis key of a run's test files. */
export const runRedisPattern = (runId: number) => `test:${testDatabasePrefix()}t_${runId}_*`

/** The template is named after the migrations it holds, so a schema change gets a new one. */
export function templateName (): string {
  const hash = createHash('sha256')
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(file).update(readFileSync(migrationsDir + file))
  }
  return `${testDatabasePrefix()}tmpl_${hash.digest('hex').slice(0, 12)}`
}

export function testDatabaseBaseUrl (): string {
  return process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || LOCAL_DATABASE_URL
}

export function withDatabase (url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Where CREATE / DROP DATABASE are issued: the given server's own database. */
export const adminUrl = () => testDatabaseBaseUrl()

export async function createTestDatabase (): Promise<{ name: string, url: string, drop: () => Promise<void> }> {
  const name = `${testDatabasePrefix()}t_${testRunId()}_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
  // Cloning needs the template to be idle; parallel clones may briefly collide.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.unsafe(`create database ${name} template ${templateName()}`)
      break
    } catch (err) {
      if (attempt >= 20 || (err as { code?: string }).code !== '55006') throw err
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200))
    }
  }
  await admin.end()
  return {
    name,
    url: withDatabase(testDatabaseBaseUrl(), name),
    async drop () {
      const cleaner = postgres(adminUrl(), { max: 1, onnotice: () => {} })
      await cleaner.unsafe(`drop database if exists ${name} with (force)`)
      await cleaner.end()
      await deleteRedisKeys(`${testRedisPrefix(name)}*`)
    }
  }
}

/** Deletes the keys matching a glob pattern (SCAN, never KEYS). */
export async function deleteRedisKeys (pattern: string): Promise<number> {
  const redis = new Redis(testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 })
  let deleted = 0
  try {
    await redis.connect()
    for await (const keys of redis.scanStream({ match: pattern, count: 500 })) {
      if ((keys as string[]).length > 0) deleted += await redis.unlink(...(keys as string[]))
    }
  } finally {
    redis.disconnect()
  }
  return deleted
}

export function testRedisUrl (): string {
  return process.env.TEST_REDIS_URL || process.env.REDIS_URL || LOCAL_REDIS_URL
}
