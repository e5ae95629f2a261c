// Is DATABASE_URL a connection pooler that hands a client's statements to
// whichever server connection is free (transaction or statement pooling, e.g.
// PgBouncer's pool_mode=transaction)? Then nothing may live in the session:
// named prepared statements, LISTEN, session advisory locks, startup settings
// (docs/deploying.md, "PgBouncer"). Two checks, each of which can only say yes
// when a pooler is there:
//
// 1. A connection that sends a startup parameter of our own
//    (shop_seller_api.pooler_probe). Postgres takes any dotted name as a custom
//    setting; PgBouncer refuses every parameter it does not know
//    ("unsupported startup parameter"), whatever its version, mode or
//    ignore_startup_parameters (nobody lists this name there).
// 2. Two client connections, one after the other, ask for their backend's pid.
//    Two sessions of Postgres never share a backend; behind a transaction pooler
//    the second is handed the server connection the first just gave back.
//
// PgBouncer in session mode, or 1.21+ with max_prepared_statements, keeps
// prepared statements too, but a client cannot tell its mode or settings:
// DB_PREPARED_STATEMENTS=on says so.
import postgres from 'postgres'

export interface PoolerCheck {
  /** Null when DATABASE_URL reaches Postgres sessions of its own. */
  pooler: string | null
}

const PROBE_PARAMETER = 'shop_seller_api.pooler_probe'
const CONNECT_TIMEOUT_S = 5

const probeOptions = { max: 1, onnotice: () => {}, connect_timeout: CONNECT_TIMEOUT_S, prepare: false, idle_timeout: 1 }

export async function detectPooler (url: string): Promise<PoolerCheck> {
  const tagged = postgres(url, { ...probeOptions, connection: { [PROBE_PARAMETER]: 'on' } })
  try {
    await tagged`select 1`
  } catch (err) {
    if (/unsupported startup parameter/i.test((err as Error).message)) {
      return { pooler: 'PgBouncer (it refuses startup parameters it does not know)' }
    }
    throw err
  } finally {
    await tagged.end({ timeout: 0 })
  }
  const first = postgres(url, probeOptions)
  const second = postgres(url, probeOptions)
  try {
    const [{ pid: firstPid }] = await first<Array<{ pid: number }>>`select pg_backend_pid() as pid`
    const [{ pid: secondPid }] = await second<Array<{ pid: number }>>`select pg_backend_pid() as pid`
    if (firstPid === secondPid) {
      return {
        pooler: 'a transaction pooler (two client connections were served by one backend)'
      }
    }
  } finally {
    await Promise.all([first.end({ timeout: 0 }), second.end({ timeout: 0 })])
  }
  return { pooler: null }
}

export type PreparedStatements = 'auto' | 'on' | 'off'

/** Whether to send named prepared statements, given DB_PREPARED_STATEMENTS and what detectPooler found. */
export function usePreparedStatements (setting: PreparedStatements, check: PoolerCheck): boolean {
  if (setting === 'auto') return check.pooler === null
  return setting === 'on'
}
