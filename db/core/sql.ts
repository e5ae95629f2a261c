// The SQL helpers every query module uses: statements with $n placeholders run
// on postgres.js and PGlite alike, and hot queries prepared once (times: db/core/time.ts).
import { sql, type SQL } from 'drizzle-orm'
import type { Queryable } from './drizzle-types.js'

// Statements written with $n placeholders run inside a drizzle transaction, their
// rows read alike on postgres.js and PGlite.
/** `text` with its $1, $2 … bound to `params`, as a drizzle SQL chunk. */
export function withParams (text: string, params: readonly unknown[]): SQL {
  const chunks: SQL[] = []
  let last = 0
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)), sql`${params[Number(match[1]) - 1]}`)
    last = match.index + match[0].length
  }
  chunks.push(sql.raw(text.slice(last)))
  return sql.join(chunks)
}

/** Runs `text` with `params` on `db` (the database or a transaction) and returns its rows. */
export async function run<Row> (db: Queryable, text: string, params: readonly unknown[] = []): Promise<Row[]> {
  const result = await db.execute(withParams(text, params)) as unknown
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[]
}

/** The postgres.js connection under a drizzle database or transaction; none on PGlite. */
interface PostgresJsSession {
  session?: {
    client?: {
      unsafe?: (text: string, params: unknown[],
        options: { prepare: boolean }) => Promise<unknown[]>
    }
  }
}

/**
 * `run` for a hot statement of constant text: on postgres.js a named prepared
 * statement (parsed and planned once per connection, as rawQuery below does for
 * the hot reads), on PGlite the same as `run`.
 */
export async function runPrepared<Row> (db: Queryable, text: string, params: readonly unknown[] = []): Promise<Row[]> {
  const client = (db as unknown as PostgresJsSession).session?.client
  if (typeof client?.unsafe !== 'function') return run<Row>(db, text, params)
  return await client.unsafe(text, [...params], { prepare: true }) as Row[]
}

// Hot-path queries prepared once per database and query shape: the SQL is built
// once (not per request), and postgres.js sends it as a named statement that
// Postgres parses and plans once per connection.
const cache = new WeakMap<object, Map<string, unknown>>()

/** The prepared query for `shape` on `db`, built by `build` on first use. */
export function preparedOnce<T> (db: object, shape: string, build: () => T): T {
  let queries = cache.get(db)
  if (!queries) cache.set(db, queries = new Map())
  let query = queries.get(shape) as T | undefined
  if (query === undefined) queries.set(shape, query = build())
  return query
}

/** The driver under drizzle: postgres.js (`unsafe`) or PGlite (`query`). */
interface DriverClient {
  unsafe?: (text: string, params: unknown[], options: { prepare: boolean }) => Promise<unknown[]>
  query?: (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>
}

/**
 * A hot read as hand-written SQL whose rows go to the response serializer as the
 * driver returns them: no ORM mapping, no per-row objects built in Node. The SQL
 * names its columns as the response schema does and formats values (ISO times,
 * JSON numbers) itself. On postgres.js it is a named prepared statement.
 */
export function rawQuery<Row> (db: object, text: string): (params: unknown[]) => Promise<Row[]> {
  const client = (db as { $client: DriverClient }).$client
  if (client.unsafe) {
    const unsafe = client.unsafe.bind(client)
    return (params) => unsafe(text, params, { prepare: true }) as Promise<Row[]>
  }
  const query = client.query!.bind(client)
  return async (params) => (await query(text, params)).rows as Row[]
}

/** Whether Postgres refused a row with a unique violation (23505), as thrown or as a wrapped error's cause. */
export const isUniqueViolation = (err: unknown): boolean =>
  (err as { code?: string })?.code === '23505' || (err as { cause?: { code?: string } })?.cause?.code === '23505'
