// The drizzle types every query module is written against, the same for
// postgres.js and PGlite (db/core/client.ts opens one or the other).
import type { ExtractTablesWithRelations } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core'
import type * as schema from '../tables.js'

export type Schema = typeof schema
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Db | Tx
