// The database as `fastify.db` (drizzle). Opens Postgres or the embedded PGlite,
// applies migrations, and closes the connection when the app closes.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { openDatabase, type Database, type Db } from '../db/client.js'

declare module 'fastify' {
  interface FastifyInstance {
    db: Db
    database: Database
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
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX
  })
  if (!options.database) fastify.addHook('onClose', async () => { await database.close() })
  await database.migrate()
  fastify.decorate('database', database)
  fastify.decorate('db', database.db)
}

export default fp(dbPlugin, { name: 'db', dependencies: ['config'] })
