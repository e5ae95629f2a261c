// npm start: run dist/server.js, building it first only when the sources
// changed since the last build (a fresh clone, a pull, an edit). With an
// up-to-date build nothing is compiled, so a start takes a second or two.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { builtHash, root, sourceHash } from './source-hash.mjs'

if (builtHash() !== sourceHash()) {
  let compilerPresent = true
  try {
    createRequire(import.meta.url).resolve('typescript/bin/tsc')
  } catch {
    compilerPresent = false
  }
  if (!compilerPresent) {
    process.stderr.write(existsSync(join(root, 'dist', 'server.js'))
      ? 'dist/ is older than the sources and TypeScript is not installed (a production install): build before ' +
        'pruning (npm run build), or run `node dist/server.js` as it is.\n'
      : 'There is no build in dist/ and TypeScript is not installed (a production install): run `npm ci && ' +
        'npm run build` first.\n')
    process.exit(1)
  }
  process.stderr.write('Building dist/ (the sources changed since the last build)…\n')
  // build.mjs says what failed in one line: nothing to add to it.
  if (spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')],
    { stdio: 'inherit' }).status !== 0) process.exit(1)
}
await import('../dist/server.js')
