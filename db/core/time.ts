// Times in SQL as the API speaks them (docs/api-rules.md: ISO 8601 in UTC with
// milliseconds): the database stores millisecond timestamps (db/tables.ts), so
// every "now" a write stores is cut to the millisecond, and SQL that answers
// with a time writes it as the API does. It imports nothing of db/: the schema's
// column defaults use it, and the connection (db/core/client.ts) imports the schema.
import { sql } from 'drizzle-orm'

/** `time` (an SQL timestamptz expression) cut to the millisecond. */
export const toMilliseconds = (time: string) => `date_trunc('milliseconds', ${time})`

/** The statement's time cut to the millisecond, as SQL text. */
export const NOW_MS = toMilliseconds('now()')

/** NOW_MS as a drizzle SQL chunk. */
export const nowMs = sql.raw(NOW_MS)

/** A timestamptz (SQL expression) as the API writes times: ISO 8601 in UTC with milliseconds. */
export const isoTime = (time: string) => `to_char(${time} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
