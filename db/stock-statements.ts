// SQL building blocks of the stock writes (docs/stock.md): statements written
// with $n placeholders run inside a drizzle transaction, their rows read alike on
// postgres.js and PGlite.
import { sql, type SQL } from 'drizzle-orm'
import type { Queryable } from './client.js'

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
interface PostgresJsSession { session?: { client?: { unsafe?: (text: string, params: unknown[], options: { prepare: boolean }) => Promise<unknown[]> } } }

/**
 * `run` for a hot statement of constant text: on postgres.js a named prepared
 * statement (parsed and planned once per connection, as db/prepared.ts does for
 * the hot reads), on PGlite the same as `run`.
 */
export async function runPrepared<Row> (db: Queryable, text: string, params: readonly unknown[] = []): Promise<Row[]> {
  const client = (db as unknown as PostgresJsSession).session?.client
  if (typeof client?.unsafe !== 'function') return run<Row>(db, text, params)
  return await client.unsafe(text, [...params], { prepare: true }) as Row[]
}
