// The database, as three decorations: `fastify.db`, the drizzle client every
// query of db/ takes; `fastify.dbConnection`, the open connection behind it
// (LISTEN, ping, pool figures, its kind); and `fastify.dbHealth.state`, the
// server's breaker (`closed` on PGlite). Opens Postgres or the embedded PGlite,
// applies migrations, and closes the connection when the app closes. A request
// that finds Postgres unreachable opens its breaker (db/core/client.ts): from then on
// requests get 503 at once until a background probe finds it back.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { openDatabase, type DbConnection, type Db } from '../db/core/client.js'
import { DependencyUnavailableError, type BreakerState } from '../domain/circuit-breaker.js'
import { isUnavailable } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The drizzle client: what every query of db/ takes. */
    db: Db
    /** The open connection behind `db`: LISTEN, ping, pool figures, its kind. */
    dbConnection: DbConnection
    /** The server's breaker state; `closed` on PGlite. */
    dbHealth: { readonly state: BreakerState }
  }
}

export interface DbPluginOptions {
  /** An already open database to use (and leave open), e.g. one PGlite shared by a test file. */
  dbConnection?: DbConnection
}

async function dbPlugin (fastify: FastifyInstance, options: DbPluginOptions) {
  const { config } = fastify
  const connection = options.dbConnection ?? await openDatabase({
    url: config.DATABASE_URL,
    directUrl: config.DATABASE_DIRECT_URL,
    preparedStatements: config.DB_PREPARED_STATEMENTS,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX
  })
  if (!options.dbConnection) fastify.addHook('onClose', async () => { await connection.close() })
  for (const note of connection.notes) fastify.log.warn(note)
  await connection.migrate()
  fastify.decorate('dbConnection', connection)
  fastify.decorate('db', connection.db)

  const { health } = connection
  fastify.decorate('dbHealth', { get state () { return health?.state ?? 'closed' } })
  if (!health) return
  const onOpen = (err: unknown) => fastify.log.warn({ err },
    'database unreachable: requests get 503 until a probe reaches it again')
  const onClose = (downMs: number) => fastify.log.info({ downMs }, 'database reachable again')
  health.on('open', onOpen).on('close', onClose)
  fastify.addHook('onClose', async () => { health.off('open', onOpen).off('close', onClose) })
  fastify.addHook('onError', async function openDatabaseBreaker (_request, _reply, err) {
    if (isUnavailable(err) && !(err instanceof DependencyUnavailableError)) health.trip(err)
  })
}

export default fp(dbPlugin, { name: 'db', dependencies: ['config', 'errors'] })
