// Runs once after the test files (tap's `after`): drops what test files of this
// run created and could not drop themselves (a file killed on timeout): their
// databases and Redis keys, recognised by the run id in their names. Nothing of
// another run is touched. Then the log sweep (test/fixtures/log-sweep.ts): the run fails
// when any app log line carries a secret.
import postgres from 'postgres'
import { adminUrl, deleteRedisKeys, runDatabasePattern, runRedisPattern, testRunId } from './fixtures/databases.js'
import { finishSweep } from './fixtures/log-sweep.js'

const runId = testRunId()
const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
const pattern = runDatabasePattern(runId)
const names = (await admin<Array<{ datname: string }>>`select datname from pg_database`).map((row) => row.datname).filter((name) => pattern.test(name))
for (const name of names) await admin.unsafe(`drop database if exists ${name} with (force)`)
await admin.end()
await deleteRedisKeys(runRedisPattern(runId))
if (!finishSweep()) process.exitCode = 1
