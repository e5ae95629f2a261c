// Hot-path queries prepared once per database and query shape: drizzle builds the
// SQL once (not per request), and postgres.js sends it as a named statement that
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
