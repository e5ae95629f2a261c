// Pooler detection against Postgres itself (the PgBouncer side runs in
// .ci/pgbouncer.sh, test/topologies/pgbouncer.ts): Postgres is never taken for a
// pooler, and DB_PREPARED_STATEMENTS decides as docs/deploying.md says.
import t from 'tap'
import { detectPooler, usePreparedStatements } from '../../db/core/pooler.js'
import { fileDatabaseUrl } from '../helper.js'

t.test('Postgres itself is not a pooler: the probe parameter is accepted, every session has its own backend', async (t) => {
  t.same(await detectPooler(await fileDatabaseUrl()), { pooler: null })
})

t.test('DB_PREPARED_STATEMENTS: auto follows the check, on and off are obeyed', async (t) => {
  const direct = { pooler: null }
  const pooled = { pooler: 'PgBouncer' }
  t.equal(usePreparedStatements('auto', direct), true)
  t.equal(usePreparedStatements('auto', pooled), false)
  t.equal(usePreparedStatements('on', pooled), true)
  t.equal(usePreparedStatements('off', direct), false)
})

t.test('an unreachable server fails the check with the connection error', async (t) => {
  await t.rejects(detectPooler('postgres://postgres@127.0.0.1:1/nowhere'), { code: 'ECONNREFUSED' })
})
