// Why the database could not be opened, in one line an operator can act on
// (the server's start and the CLI both say it so), or null for anything else.
import { DataDirInUseError } from './data-dir-lock.js'

const unreachable = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED'])

/** The database without its password. */
function describe (url: string | undefined, dataDir: string): string {
  if (!url) return `the embedded database in ${dataDir}`
  const parsed = new URL(url)
  return `the database ${parsed.pathname.slice(1) || '(default)'} at ${parsed.hostname}:${parsed.port || 5432}`
}

export function explainOpenFailure (err: unknown, where: { url?: string, dataDir: string }): string | null {
  if (err instanceof DataDirInUseError) return err.message
  const errors = err instanceof AggregateError ? [err, ...err.errors] : [err]
  for (const e of errors as Array<{ code?: unknown, message?: string }>) {
    if (typeof e?.code !== 'string') continue
    const database = describe(where.url, where.dataDir)
    if (unreachable.has(e.code)) {
      return `cannot reach ${database} (${e.code}); is Postgres running, and is ` +
      'DATABASE_URL right?'
    }
    if (e.code === '3D000') return `${database} does not exist; create it, or fix DATABASE_URL.`
    if (e.code === '28P01' || e.code === '28000') {
      return `${database} refused the credentials in DATABASE_URL (${e.code}).`
    }
    if (/^(08|53|57P)/.test(e.code)) return `${database} is not accepting connections: ${e.message} (${e.code}).`
  }
  return null
}
