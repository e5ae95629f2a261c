// The database connection: postgres.js when DATABASE_URL is set, otherwise an
// embedded PGlite (real Postgres compiled to WASM) in DATA_DIR. Both speak the
// same schema, migrations and queries through drizzle.
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ExtractTablesWithRelations } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core'
import { Notifier, notifyingAfterCommit, payloadsOf } from './notifications.js'
import * as schema from './schema.js'

export type Schema = typeof schema
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Db | Tx

export interface Database {
  db: Db
  kind: 'postgres' | 'pglite'
  /** Applies pending migrations; safe when several instances start at once. */
  migrate: () => Promise<void>
  ping: () => Promise<void>
  /**
   * LISTENs on `channel` on a connection of its own (not the pool's) for what
   * transactions send with notifyAfterCommit (db/notifications.ts); `onNotify`
   * gets each payload. `onListen` runs each time the LISTEN is in place: once at
   * first, and again after the connection dropped and came back (notifications
   * sent meanwhile are lost). Resolves to a function that stops listening.
   */
  listen: (channel: string, onNotify: (payload: string) => void, onListen: () => void) => Promise<() => Promise<void>>
  close: () => Promise<void>
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))
/** Arbitrary constant: the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK = 7_310_455_021

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. */
  url?: string
  /** Where PGlite keeps its files; `memory://` keeps nothing. */
  dataDir?: string
  poolMax?: number
}

export async function openDatabase (options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolMax ?? 10) : openPglite(options.dataDir ?? './data')
}

async function openPostgres (url: string, max: number): Promise<Database> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  const { migrate } = await import('drizzle-orm/postgres-js/migrator')
  const client = postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: 5,
    // Dates come back as Date; numeric stays an exact string (drizzle's default).
    connection: { application_name: 'shop-seller-api' }
  })
  // Notifications after commit, on a connection of their own that does not wait for the disk.
  const notifierClient = postgres(url, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { application_name: 'shop-seller-api', synchronous_commit: 'off' }
  })
  const notifier = new Notifier((channel, payload) => notifierClient`select pg_notify(${channel}, ${payload})`)
  return {
    db: notifyingAfterCommit(drizzle({ client, schema }) as unknown as Db, notifier),
    kind: 'postgres',
    async migrate () {
      // One connection, so the session-level lock and the migration share it.
      const single = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 })
      try {
        await single`select pg_advisory_lock(${MIGRATION_LOCK})`
        await migrate(drizzle({ client: single, schema }), { migrationsFolder })
      } finally {
        await single.end({ timeout: 5 })
      }
    },
    async ping () { await client`select 1` },
    async listen (channel, onNotify, onListen) {
      // postgres.js keeps one dedicated connection for all LISTENs of this client,
      // re-listens after it drops (retrying until Postgres is back) and calls onListen again.
      const { unlisten } = await client.listen(channel, (notification) => payloadsOf(notification).forEach(onNotify), onListen)
      return unlisten
    },
    async close () {
      await notifier.close()
      await Promise.all([client.end({ timeout: 5 }), notifierClient.end({ timeout: 5 })])
    }
  }
}

async function openPglite (dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { drizzle } = await import('drizzle-orm/pglite')
  const { migrate } = await import('drizzle-orm/pglite/migrator')
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true })
  const client = await PGlite.create(dataDir)
  const db = drizzle({ client, schema })
  const notifier = new Notifier((channel, payload) => client.query('select pg_notify($1, $2)', [channel, payload]))
  return {
    db: notifyingAfterCommit(db as unknown as Db, notifier),
    kind: 'pglite',
    async migrate () { await migrate(db, { migrationsFolder }) },
    async ping () { await client.query('select 1') },
    async listen (channel, onNotify, onListen) {
      // In-process: PGlite delivers a NOTIFY to its own listeners.
      const unlisten = await client.listen(channel, (notification) => payloadsOf(notification).forEach(onNotify))
      onListen()
      return async () => { if (!client.closed) await unlisten() }
    },
    async close () {
      await notifier.close()
      if (!client.closed) await client.close()
    }
  }
}
