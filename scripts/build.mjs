// npm run build: compile to dist/ (tsc), copy the migrations beside the
// compiled data layer, and record which sources this build is made of.
import { execFileSync } from 'node:child_process'
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { hashFile, root, sourceHash } from './source-hash.mjs'

const hash = sourceHash()
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
rmSync(join(root, 'dist'), { recursive: true, force: true })
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
cpSync(join(root, 'db', 'migrations'), join(root, 'dist', 'db', 'migrations'), { recursive: true })
writeFileSync(hashFile, hash + '\n')
