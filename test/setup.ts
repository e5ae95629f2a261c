// Runs once before the test files (tap's `before`): makes sure a migrated
// template database exists for the current migrations (every test file clones
// its own database from it) and drops databases left behind by dead runs.
import postgres from 'postgres'
import { openDatabase } from '../db/client.js'
import { adminUrl, templateName, testDatabaseBaseUrl, withDatabase } from './databases.js'

const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
const template = templateName()
const [existing] = await admin`select 1 from pg_database where datname = ${template}`
if (!existing) {
  const building = `${template}_build_${process.pid}`
  await admin.unsafe(`create database ${building}`)
  const db = await openDatabase({ url: withDatabase(testDatabaseBaseUrl(), building), poolMax: 1 })
  await db.migrate()
  await db.close()
  // Renamed into place only when complete: a concurrent run never clones a half-built template.
  await admin.unsafe(`alter database ${building} rename to ${template}`).catch(async () => {
    await admin.unsafe(`drop database if exists ${building} with (force)`)
  })
}

const isAlive = (pid: number) => { try { process.kill(pid, 0); return true } catch { return false } }
const leftovers = await admin<Array<{ datname: string }>>`
  select datname from pg_database
  where datname ~ '^seller_api_t_[0-9]+_[0-9a-f]+$' or datname ~ '^seller_api_tmpl_[0-9a-f]+_build_[0-9]+$'`
for (const { datname } of leftovers) {
  const pid = Number(/_(\d+)(?:_[0-9a-f]+)?$/.exec(datname)![1])
  if (!isAlive(pid)) await admin.unsafe(`drop database if exists ${datname} with (force)`)
}
await admin.end()
