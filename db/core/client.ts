// The database connection: postgres.js when DATABASE_URL is set, otherwise an
// embedded PGlite (real Postgres compiled to WASM) in DATA_DIR. Both speak the
// same schema, migrations and queries through drizzle.
//
// Postgres is a server that can go away, so its pool sits behind a circuit
// breaker (domain/circuit-breaker.ts): once a request has seen it unreachable,
// every query is refused at once (503) instead of waiting for postgres.js'
// shared reconnect backoff (up to 20 s), and one probe connection tries it
// every PROBE_INTERVAL_MS; when that succeeds, the pool is used again.
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Sql } from 'postgres'
import { CircuitBreaker } from '../../domain/circuit-breaker.js'
import { lockDataDir } from './data-dir-lock.js'
import { PostgresListener } from './listener.js'
import { detectPooler, usePreparedStatements, type PreparedStatements } from './pooler.js'
import { Notifier, notifyingAfterCommit, payloadsOf } from './notifications.js'
import type { Db } from './drizzle-types.js'
import * as schema from '../tables.js'

export type { Db, Queryable, Schema, Tx } from './drizzle-types.js'

/** An open database: the drizzle client (`db`) and what the service needs of the connection itself. */
export interface DbConnection {
  db: Db
  kind: 'postgres' | 'pglite'
  /** Applies pending migrations; safe when several instances start at once. */
  migrate: () => Promise<void>
  ping: () => Promise<void>
  /** Postgres only (PGlite has no pool): connections busy, and queries queued for one. */
  poolStats?: () => { max: number, inUse: number, waiting: number }
  /**
   * LISTENs on `channel` on a connection of its own (not the pool's) for what
   * transactions send with notifyAfterCommit (db/core/notifications.ts) or pg_notify;
   * `onNotify` gets each payload. `onListen` runs each time the LISTEN is in
   * place: once at first, and again after the connection dropped and came back;
   * `onDrop` when it dropped (notifications sent until the next `onListen` are
   * lost). Resolves to a function that stops listening.
   */
  listen: (channel: string, onNotify: (payload: string) => void, onListen: () => void,
    onDrop?: () => void) => Promise<() => Promise<void>>
  close: () => Promise<void>
  /** What an operator should hear about the connection at start (e.g. a setting the pooler keeps from the server). */
  notes: string[]
  /** The server's breaker (null for the embedded database, which cannot go away). */
  health: CircuitBreaker | null
}

const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url))
/** Arbitrary constant: the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK = 7_310_455_021

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. May be a transaction pooler (db/core/pooler.ts). */
  url?: string
  /** A session of its own (not a transaction pooler) for LISTEN, migrations and their lock; default `url`. */
  directUrl?: string
  /** Named prepared statements: `auto` sends them unless `url` is a pooler that cannot keep them. */
  preparedStatements?: PreparedStatements
  /** Where PGlite keeps its files; `memory://` keeps nothing. */
  dataDir?: string
  poolMax?: number
}

export async function openDatabase (options: DatabaseOptions): Promise<DbConnection> {
  if (!options.url) return openPglite(options.dataDir ?? './data')
  return openPostgres(options.url, options.directUrl ?? options.url, options.poolMax ?? 10,
    options.preparedStatements ?? 'auto')
}

/** Seconds a connection attempt may take before the request gets its 503. */
export const CONNECT_TIMEOUT_S = 1
/** How often a down database is probed. */
const PROBE_INTERVAL_MS = 250
/** How often a running statement checks that its client is still connected. */
const CLIENT_CHECK_INTERVAL_MS = 200

/**
 * The client drizzle sees: every statement and transaction first asks the
 * breaker, so none waits on a database known to be down. (Statements inside a
 * transaction run on the transaction's own connection and pass straight through.)
 */
function guardedClient (client: Sql, breaker: CircuitBreaker): Sql {
  return new Proxy(client, {
    get (target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property !== 'unsafe' && property !== 'begin' && property !== 'reserve') return value
      return (...args: unknown[]) => {
        breaker.assertClosed()
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    }
  })
}

/** Refused at start: what needs a session of its own would go through the pooler. */
export class PoolerWithoutDirectUrlError extends Error {
  constructor (pooler: string) {
    super(`DATABASE_URL points at ${pooler}; set DATABASE_DIRECT_URL to a session connection (Postgres itself ` +
      'or a session-mode pool) for LISTEN, migrations and their advisory lock (docs/deploying.md)')
    this.name = 'PoolerWithoutDirectUrlError'
  }
}

async function openPostgres (
  url: string, directUrl: string, max: number, preparedStatements: PreparedStatements
): Promise<DbConnection> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  const { migrate } = await import('drizzle-orm/postgres-js/migrator')
  const check = await detectPooler(url)
  if (check.pooler !== null && directUrl === url) throw new PoolerWithoutDirectUrlError(check.pooler)
  const pooled = check.pooler !== null
  const notes: string[] = []
  const client = postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: CONNECT_TIMEOUT_S,
    // Off through a transaction pooler: the next statement may reach a server
    // connection that never saw the name (docs/deploying.md, "PgBouncer").
    prepare: usePreparedStatements(preparedStatements, check),
    // The pool's reconnect delay, shared by its connections, grows to 20 s by
    // default; the breaker already keeps requests off a down server, so after
    // an outage the pool reconnects at once.
    backoff: (retries) => Math.min(0.05 * retries, 0.25),
    // Dates come back as Date; numeric stays an exact string (drizzle's default).
    // A pooler refuses startup parameters it does not know, and would not keep them
    // for the server connections it hands out anyway: there the server's role
    // setting gives it (checked below).
    connection: pooled
      ? { application_name: 'shop-seller-api' }
      : {
          application_name: 'shop-seller-api',
          // The hot writes are single statements without BEGIN / COMMIT (db/events/statements.ts).
          // When the client goes away while one still runs (waiting for a row lock, say),
          // Postgres notices within this interval and cancels it, so a request that failed
          // leaves nothing behind, as an uncommitted transaction would (Postgres 14 or later).
          client_connection_check_interval: String(CLIENT_CHECK_INTERVAL_MS),
          // The only statements costly enough for Postgres to compile them (the sales statistics
          // over a year, db/stats/sales.ts) spent longer compiling than running: measured in
          // docs/performance/sales-stats.md.
          jit: 'off'
        }
  })
  if (pooled) {
    const [{ interval }] = await client<Array<{ interval: string }>>`
      select current_setting('client_connection_check_interval') as interval`
    if (interval === '0') {
      notes.push(`DATABASE_URL goes through ${check.pooler}, whose server connections have ` +
        'client_connection_check_interval=0: a write whose instance dies while it waits for a lock may still commit. ' +
        'Set it on the role: ALTER ROLE <user> SET client_connection_check_interval = ' +
          `'${CLIENT_CHECK_INTERVAL_MS}ms' (docs/deploying.md).`)
    }
  }
  const health = new CircuitBreaker({
    name: 'database',
    probeIntervalMs: PROBE_INTERVAL_MS,
    async probe () {
      // A connection of its own: a fresh handshake says whether the server takes new connections.
      const probe = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: CONNECT_TIMEOUT_S, idle_timeout: 1 })
      try {
        await probe`select 1`
      } finally {
        await probe.end({ timeout: 0 })
      }
    }
  })
  // Notifications after commit, on a session of their own that does not wait for the disk.
  const notifierClient = postgres(directUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: CONNECT_TIMEOUT_S,
    connection: { application_name: 'shop-seller-api', synchronous_commit: 'off' }
  })
  const notifier = new Notifier((channel, payload) => notifierClient`select pg_notify(${channel}, ${payload})`)
  let listener: PostgresListener | undefined
  return {
    db: notifyingAfterCommit(drizzle({ client: guardedClient(client, health), schema }) as unknown as Db, notifier),
    kind: 'postgres',
    health,
    async migrate () {
      // One connection, so the session-level lock and the migration share it.
      const single = postgres(directUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 })
      try {
        await single`select pg_advisory_lock(${MIGRATION_LOCK})`
        await migrate(drizzle({ client: single, schema }), { migrationsFolder })
      } finally {
        await single.end({ timeout: 5 })
      }
    },
    async ping () {
      health.assertClosed()
      await client`select 1`
    },
    // `stats` comes from our patch of postgres.js (patches/), as porsager/postgres#443 asks.
    poolStats: () => ({ max, ...(client as unknown as { stats: { inUse: number, waiting: number } }).stats }),
    async listen (channel, onNotify, onListen, onDrop = () => {}) {
      // One dedicated connection for all LISTENs of this instance; it re-listens
      // after a drop (retrying until Postgres is back) and says when it dropped.
      // A session of its own (DATABASE_DIRECT_URL): through a transaction pooler,
      // notifications would not reach it.
      listener ??= new PostgresListener((options) => postgres(directUrl, options), {
        onnotice: () => {},
        connect_timeout: CONNECT_TIMEOUT_S,
        backoff: (retries) => Math.min(0.05 * retries, 0.25),
        connection: { application_name: 'shop-seller-api' }
      })
      return listener.subscribe(channel, { onNotify, onListen, onDrop })
    },
    async close () {
      health.stop()
      await notifier.close()
      await Promise.all([client.end({ timeout: 5 }), notifierClient.end({ timeout: 5 }), listener?.stop()])
    },
    notes
  }
}

/**
 * PGlite keeps Postgres' default shared_buffers (128 MB, plus the WASM heap
 * around them): about 820 MB RSS. One process and a small catalog do not need
 * that; 16 MB brings a restarted server to about 160 MB (see README, Deploying).
 */
const PGLITE_SHARED_BUFFERS = '16MB'

async function openPglite (dataDir: string): Promise<DbConnection> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { drizzle } = await import('drizzle-orm/pglite')
  const { migrate } = await import('drizzle-orm/pglite/migrator')
  const inMemory = dataDir.startsWith('memory://')
  if (!inMemory) mkdirSync(dataDir, { recursive: true })
  const unlock = inMemory ? () => {} : lockDataDir(dataDir)
  let client
  try {
    client = await PGlite.create(dataDir,
      { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`] })
  } catch (err) {
    unlock()
    throw err
  }
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
      unlock()
    },
    health: null,
    notes: []
  }
}
