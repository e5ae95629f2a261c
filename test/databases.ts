// Test databases: real Postgres (TEST_DATABASE_URL, else DATABASE_URL, else the
// local server). Each test file works in its own clone of a migrated template,
// so files run in parallel and reruns start clean.
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'

const migrationsDir = fileURLToPath(new URL('../db/migrations/', import.meta.url))

/** The template is named after the migrations it holds, so a schema change gets a new one. */
export function templateName (): string {
  const hash = createHash('sha256')
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(file).update(readFileSync(migrationsDir + file))
  }
  return `seller_api_tmpl_${hash.digest('hex').slice(0, 12)}`
}

export function testDatabaseBaseUrl (): string {
  return process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
}

export function withDatabase (url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Where CREATE / DROP DATABASE are issued: the given server's own database. */
export const adminUrl = () => testDatabaseBaseUrl()

export async function createTestDatabase (): Promise<{ url: string, drop: () => Promise<void> }> {
  const name = `seller_api_t_${process.pid}_${randomBytes(4).toString('hex')}`
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
    url: withDatabase(testDatabaseBaseUrl(), name),
    async drop () {
      const cleaner = postgres(adminUrl(), { max: 1, onnotice: () => {} })
      await cleaner.unsafe(`drop database if exists ${name} with (force)`)
      await cleaner.end()
    }
  }
}

export function testRedisUrl (): string {
  return process.env.TEST_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379'
}
