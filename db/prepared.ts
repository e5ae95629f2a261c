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
