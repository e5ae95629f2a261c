// The build as `npm start` runs it (scripts/build.mjs, scripts/source-hash.mjs),
// on a copy of the sources in a temporary directory: a stray *.ts saved at the
// root (say, the README's client snippet) is not part of the build, and a
// failed compilation is one line on stderr, exit 1, no stack trace.
import { spawnSync } from 'node:child_process'
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import t from 'tap'
const repo = resolve(import.meta.dirname, '..', '..')
/** What the build compiles (scripts/source-hash.mjs reads the same list). */
const SOURCES: string[] = JSON.parse(readFileSync(join(repo, 'tsconfig.build.json'), 'utf8')).include

t.test('a stray root *.ts changes nothing; a failed build is one line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seller-api-build-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const entry of [...SOURCES, 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(repo, entry), join(dir, entry), { recursive: true })
  }
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'))
  const hash = () => spawnSync(process.execPath, ['-e', "import('./scripts/source-hash.mjs').then((m) => console.log(m.sourceHash()))"], { cwd: dir, encoding: 'utf8' }).stdout.trim()

  const before = hash()
  writeFileSync(join(dir, 'bot.ts'), "import { createSellerClient } from './client/index.js'\nconsole.log(savedCursor, createSellerClient)\n")
  t.equal(hash(), before, 'a stray root file does not make the build stale')

  appendFileSync(join(dir, 'healthcheck.ts'), "\nexport const broken: number = 'not a number'\n")
  t.not(hash(), before, 'an entry file does')
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8' })
  t.equal(build.status, 1)
  t.equal(build.stdout, '')
  t.match(build.stderr, /^Build failed \(1 TypeScript error; npm run typecheck lists them\): healthcheck\.ts\(\d+,\d+\): error TS2322: [^\n]+\n$/, 'one line naming the error; the stray file is not compiled')
})
