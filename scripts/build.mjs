// npm run build: compile to dist/ (tsc), copy the migrations beside the
// compiled data layer and the seller portal's templates and static files beside
// its routes, and record which sources this build is made of.
// A failed compilation is one line on stderr (the first error and how many
// there are; `npm run typecheck` lists them all) and exit 1, never a stack trace.
import { spawnSync } from 'node:child_process'
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { hashFile, root, sourceHash } from './source-hash.mjs'

const hash = sourceHash()
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
rmSync(join(root, 'dist'), { recursive: true, force: true })
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--pretty', 'false'],
  { cwd: root, encoding: 'utf8' })
if (compiled.status !== 0) {
  const errors = `${compiled.stdout}${compiled.stderr}`.split('\n').filter((line) => /error TS\d+/.test(line))
  const first = errors[0] ?? (compiled.error?.message || `tsc exited with ${compiled.status ?? compiled.signal}`)
  process.stderr.write(`Build failed (${errors.length || 1} TypeScript error${errors.length > 1 ? 's' : ''}; ` +
    `npm run typecheck lists them): ${first.trim()}\n`)
  process.exit(1)
}
cpSync(join(root, 'db', 'migrations'), join(root, 'dist', 'db', 'migrations'), { recursive: true })
for (const dir of ['views', 'static']) {
  cpSync(join(root, 'routes', 'portal', dir),
    join(root, 'dist', 'routes', 'portal', dir), { recursive: true })
}
writeFileSync(hashFile, hash + '\n')
