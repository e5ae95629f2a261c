// Runs once before the test files (tap's `before`): prepares a migrated
// template database from which every test file clones its own database.
import postgres from 'postgres'
import { openDatabase } from '../db/client.js'
import { adminUrl, TEMPLATE_DB, testDatabaseBaseUrl, withDatabase } from './databases.js'

const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
await admin.unsafe(`drop database if exists ${TEMPLATE_DB} with (force)`)
await admin.unsafe(`create database ${TEMPLATE_DB}`)
const template = await openDatabase({ url: withDatabase(testDatabaseBaseUrl(), TEMPLATE_DB), poolMax: 1 })
await template.migrate()
await template.close()
// Databases left behind by interrupted runs.
const stale = await admin<Array<{ datname: string }>>`select datname from pg_database where datname ~ '^seller_api_t_[0-9]+_[0-9a-f]+$'`
for (const { datname } of stale) await admin.unsafe(`drop database if exists ${datname} with (force)`)
await admin.end()
