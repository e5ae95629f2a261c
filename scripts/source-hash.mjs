// What a build of dist/ is made from, as one SHA-256: the TypeScript sources,
// the migrations, the compiler settings and the lockfile. dist/.source-hash
// holds the hash of the sources it was built from, so `npm start` can tell an
// up-to-date build from a stale one without running the compiler.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const hashFile = join(root, 'dist', '.source-hash')

/**
 * What the build compiles: tsconfig.build.json's include list is the one place
 * that names it, the entry files at the root one by one (so a stray *.ts saved
 * at the root is not part of the build) and the source folders.
 */
export const SOURCES = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')).include
export const DIRECTORIES = SOURCES.filter((entry) => !entry.endsWith('.ts'))
const ENTRY_FILES = SOURCES.filter((entry) => entry.endsWith('.ts'))
const ROOT_FILES = ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json']

function filesUnder (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [path]
  })
}

export function sourceHash () {
  const files = [...ENTRY_FILES.map((name) => join(root, name)), ...ROOT_FILES.map((name) => join(root, name)),
    ...DIRECTORIES.flatMap((dir) => filesUnder(join(root, dir)))]
    .filter((file) => statSync(file).isFile())
    .sort()
  const hash = createHash('sha256')
  for (const file of files) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0')
  return hash.digest('hex')
}

export function builtHash () {
  try {
    return readFileSync(hashFile, 'utf8').trim()
  } catch {
    return null
  }
}
