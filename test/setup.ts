// Runs once before the test files (tap's `before`): makes sure a migrated
// template database exists for the current migrations (every test file clones
// its own database from it). It drops nothing it did not create: databases of
// other runs, even dead ones, are left alone (test/teardown.ts cleans this run's).
import postgres from 'postgres'
import { openDatabase } from '../db/core/client.js'
import { adminUrl, templateName, testDatabaseBaseUrl, withDatabase } from './fixtures/databases.js'

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
await admin.end()
