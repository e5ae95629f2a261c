// The database as `fastify.db` (drizzle). Opens Postgres or the embedded PGlite,
// applies migrations, and closes the connection when the app closes. A request
// that finds Postgres unreachable opens its breaker (db/client.ts): from then on
// requests get 503 at once until a background probe finds it back. The
// breaker's state is `fastify.databaseHealth.state` (`closed` on PGlite).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { openDatabase, type Database, type Db } from '../db/client.js'
import { DependencyUnavailableError, type BreakerState } from '../domain/circuit-breaker.js'
import { isUnavailable } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    database: Database
    databaseHealth: { readonly state: BreakerState }
  }
}

export interface DbPluginOptions {
  /** An already open database to use (and leave open), e.g. one PGlite shared by a test file. */
  database?: Database
}

async function dbPlugin (fastify: FastifyInstance, options: DbPluginOptions) {
  const { config } = fastify
  const database = options.database ?? await openDatabase({
    url: config.DATABASE_URL,
    directUrl: config.DATABASE_DIRECT_URL,
    preparedStatements: config.DB_PREPARED_STATEMENTS,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX
  })
  if (!options.database) fastify.addHook('onClose', async () => { await database.close() })
  for (const note of database.notes) fastify.log.warn(note)
  await database.migrate()
  fastify.decorate('database', database)
  fastify.decorate('db', database.db)

  const { health } = database
  fastify.decorate('databaseHealth', { get state () { return health?.state ?? 'closed' } })
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
