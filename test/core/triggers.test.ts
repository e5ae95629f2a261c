// The triggers in sight (docs/architecture.md, "Triggers"): every trigger of the
// migrated database, and every function a db/<feature>/triggers.sql file defines,
// is what those files say. The migrations write them; the files show each one's
// current definition in one place, so a migration that redefines a trigger or its
// function without the file changing fails here. Every db/*/triggers.sql is read, and
// docs/architecture.md must name each file and each of its triggers.
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
import t from 'tap'
import { openDatabase } from '../../db/core/client.js'
import { adminUrl, testDatabaseBaseUrl, testDatabasePrefix, testRunId, withDatabase } from '../fixtures/databases.js'

const dbDir = fileURLToPath(new URL('../../db/', import.meta.url))

/** Each db/<feature>/triggers.sql, by its path from the repository. */
function triggerFiles (): Array<{ path: string, text: string }> {
  return readdirSync(dbDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${dbDir}${entry.name}/triggers.sql`))
    .map((entry) => entry.name).sort()
    .map((feature) => ({ path: `db/${feature}/triggers.sql`, text: readFileSync(`${dbDir}${feature}/triggers.sql`, 'utf8') }))
}

/** The functions and triggers a file creates (SQL comments left out). */
function namesIn (text: string): { functions: string[], triggers: Array<{ name: string, table: string }> } {
  const code = text.replace(/--[^\n]*/g, '')
  const functions = [...code.matchAll(/create\s+(?:or\s+replace\s+)?function\s+(\w+)/gi)].map((m) => m[1]!)
  const triggers = [...code.matchAll(/create\s+(?:or\s+replace\s+)?(?:constraint\s+)?trigger\s+(\w+)[\s\S]*?\son\s+(\w+)/gi)]
    .map((m) => ({ name: m[1]!, table: m[2]! }))
  return { functions, triggers }
}

/** Whitespace runs count as one space: a file may be laid out differently, not say something else. */
const normalised = (definition: string) => definition.replace(/\s+/g, ' ').trim()

type Definitions = { triggers: Map<string, string>, functions: Map<string, string>, triggerFunctions: string[] }

/** The public schema's triggers (not the ones Postgres makes for constraints) and functions, as Postgres prints them. */
async function definitions (sql: postgres.Sql): Promise<Definitions> {
  const triggers = await sql<Array<{ name: string, def: string }>>`
    select tgname as name, pg_get_triggerdef(t.oid) as def
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and not t.tgisinternal`
  const functions = await sql<Array<{ name: string, def: string, trigger: boolean }>>`
    select p.proname as name, pg_get_functiondef(p.oid) as def, p.prorettype = 'trigger'::regtype as trigger
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.prokind = 'f'
      and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`
  return {
    triggers: new Map(triggers.map((r) => [r.name, normalised(r.def)])),
    functions: new Map(functions.map((r) => [r.name, normalised(r.def)])),
    triggerFunctions: functions.filter((r) => r.trigger).map((r) => r.name)
  }
}

t.test('the migrated database\'s triggers are the ones db/*/triggers.sql define', async (t) => {
  const files = triggerFiles()
  t.ok(files.length >= 3, `trigger files found: ${files.map((f) => f.path).join(', ')}`)

  // A fresh database, migrated as an instance does at start.
  const name = `${testDatabasePrefix()}t_${testRunId()}_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database ${name}`)
  t.teardown(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`)
    await admin.end()
  })
  const url = withDatabase(testDatabaseBaseUrl(), name)
  const database = await openDatabase({ url, poolMax: 1 })
  await database.migrate()
  await database.close()

  const sql = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  const migrated = await definitions(sql)

  const named = files.map((file) => ({ ...file, ...namesIn(file.text) }))
  const fileOf = new Map<string, string>()
  for (const file of named) {
    for (const object of [...file.functions, ...file.triggers.map((trigger) => trigger.name)]) {
      t.notOk(fileOf.has(object), `${object} is defined once, in ${fileOf.get(object) ?? file.path}`)
      fileOf.set(object, file.path)
    }
  }
  for (const trigger of migrated.triggers.keys()) {
    t.ok(fileOf.has(trigger), `trigger ${trigger} of the migrations is in a db/*/triggers.sql`)
  }
  for (const fn of migrated.triggerFunctions) {
    t.ok(fileOf.has(fn), `trigger function ${fn} of the migrations is in a db/*/triggers.sql`)
  }

  // The files' objects made again from the files alone, on the migrated database:
  // Postgres prints each definition the same way as before, or the file says something else.
  for (const file of named) {
    for (const trigger of file.triggers) await sql.unsafe(`drop trigger if exists ${trigger.name} on ${trigger.table}`)
    for (const fn of file.functions) await sql.unsafe(`drop function if exists ${fn} cascade`)
  }
  for (const file of named) await sql.unsafe(file.text)
  const fromFiles = await definitions(sql)

  for (const file of named) {
    for (const trigger of file.triggers) {
      t.equal(fromFiles.triggers.get(trigger.name), migrated.triggers.get(trigger.name),
        `trigger ${trigger.name}: ${file.path} says what the migrations do`)
    }
    for (const fn of file.functions) {
      t.equal(fromFiles.functions.get(fn), migrated.functions.get(fn),
        `function ${fn}: ${file.path} says what the migrations do`)
    }
  }
  t.same([...fromFiles.triggers.keys()].sort(), [...migrated.triggers.keys()].sort(),
    'the files make no trigger the migrations do not, and drop none they keep')
})

t.test('docs/architecture.md names every trigger file and every trigger in it', async (t) => {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/architecture.md', import.meta.url)), 'utf8')
  for (const file of triggerFiles()) {
    t.ok(doc.includes(`### ${file.path}\n`), `docs/architecture.md has a section on ${file.path}`)
    for (const trigger of namesIn(file.text).triggers) {
      t.ok(doc.includes(`\`${trigger.name}\``), `docs/architecture.md names ${trigger.name} (${file.path})`)
    }
  }
})
