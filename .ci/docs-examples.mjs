// CI: the code blocks of README.md and docs/*.md that are meant to run, run
// against a live instance, read from the Markdown itself, so no example can
// drift from what the service does. What a block's info string says:
//
//   ```sh run                     run it with bash; it must exit 0 and print no
//                                 `"success":false` (unless `expect-error`)
//   ```sh run until="REGEX"       a long-running command (a bot): it passes once
//                                 its output matches REGEX, then it is stopped
//   ```sh run timeout=N           seconds allowed (default 90)
//   ```ts file=examples/NAME.ts   saved under that name and type-checked (tsc,
//                                 the project's settings); a later block runs it
//
// Every other block is prose. The blocks of one Markdown file form one shell
// session, run in document order: the variables and functions a block defines
// are there in the next ones (a stopped `until` block passes nothing on). The
// session's working directory is a scratch copy of the repository's layout
// (client/, examples/ and node_modules/ linked, `data/` the instance's DATA_DIR,
// so `data/internal-token` is where a newcomer finds it), SELLER_API_URL points
// at the instance and SELLER_API_KEY is the demo key its first start printed.
// Nothing is written to the work tree.
//
//   node .ci/docs-examples.mjs [file.md …]    (default: README.md and docs/*.md)
// Ends with `docs examples: N passed, N failed` (a block is one test).
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { root, startInstance } from './live-instance.mjs'

/** The fenced blocks of a Markdown file, with their info string's language and attributes. */
export function codeBlocks (markdown) {
  const blocks = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(`{3,}|~{3,})\s*(\S*)\s*(.*)$/)
    if (!open) continue
    const fence = open[1]
    const body = []
    let j = i + 1
    while (j < lines.length && !lines[j].startsWith(fence)) body.push(lines[j++])
    const attributes = {}
    for (const [, name, quoted, bare] of open[3].matchAll(/([\w-]+)(?:=(?:"([^"]*)"|(\S+)))?/g)) {
      attributes[name] = quoted ?? bare ?? true
    }
    blocks.push({ line: i + 1, language: open[2], attributes, body: body.join('\n') + '\n' })
    i = j
  }
  return blocks
}

const markdownFiles = process.argv.slice(2).length > 0
  ? process.argv.slice(2).map((file) => resolve(file))
  : [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort()
      .map((name) => join(root, 'docs', name))]

const files = markdownFiles.map((path) => {
  const blocks = codeBlocks(readFileSync(path, 'utf8'))
  return {
    name: relative(root, path),
    runs: blocks.filter((block) => block.language === 'sh' && block.attributes.run),
    sources: blocks.filter((block) => block.language === 'ts' && typeof block.attributes.file === 'string')
  }
})

let passed = 0
let failed = 0
const result = (ok, what, detail = '') => {
  if (ok) passed++
  else failed++
  const indented = detail ? `\n${detail.trimEnd().split('\n').map((line) => `    ${line}`).join('\n')}` : ''
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}${indented}`)
}

/** A scratch directory shaped like the repository for a user's commands; the instance's data goes to its data/. */
function scratch () {
  const dir = mkdtempSync(join(tmpdir(), 'seller-api-docs-'))
  for (const name of ['client', 'node_modules', 'package.json']) symlinkSync(join(root, name), join(dir, name))
  mkdirSync(join(dir, 'examples'))
  // The repository's examples, except a snippet's own file a reader may have saved there.
  const snippets = new Set(files.flatMap((file) => file.sources.map((block) => resolve(root, block.attributes.file))))
  for (const name of readdirSync(join(root, 'examples'))) {
    const example = join(root, 'examples', name)
    if (!snippets.has(example)) symlinkSync(example, join(dir, 'examples', name))
  }
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'))
  delete compilerOptions.rootDir
  delete compilerOptions.outDir
  const tsconfig = { compilerOptions: { ...compilerOptions, noEmit: true }, include: ['examples'] }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig))
  return dir
}

/** The TypeScript blocks, saved where they say and type-checked together with the examples/ they sit beside. */
function typeCheck (dir) {
  const written = []
  for (const file of files) {
    for (const block of file.sources) {
      const target = resolve(dir, block.attributes.file)
      if (!target.startsWith(join(dir, 'examples') + '/')) {
        result(false, `${file.name}:${block.line}: file=${block.attributes.file} must be under examples/`)
        continue
      }
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, block.body)
      written.push({ file, block })
    }
  }
  if (written.length === 0) return
  const tscBin = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const tsc = spawnSync(process.execPath, [tscBin, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'],
    { cwd: dir, encoding: 'utf8' })
  const errors = `${tsc.stdout}${tsc.stderr}`
  for (const { file, block } of written) {
    const mine = errors.split('\n').filter((line) => line.startsWith(block.attributes.file)).join('\n')
    result(tsc.status === 0 || mine === '', `${file.name}:${block.line}: ${block.attributes.file} type-checks`, mine)
  }
  if (tsc.status !== 0 && !written.some(({ block }) => errors.includes(block.attributes.file))) {
    result(false, 'the examples type-check', errors)
  }
}

/** Runs one block of a session; resolves to what it printed and whether it passed. */
async function runBlock (dir, env, state, block) {
  const timeoutS = Number(block.attributes.timeout ?? 90)
  const until = typeof block.attributes.until === 'string' ? new RegExp(block.attributes.until) : null
  // The session: the previous blocks' variables and functions in, this block's out (its own variables only).
  const script = [
    `[ -f ${state} ] && source ${state}`,
    'set -euo pipefail',
    block.body,
    '{ comm -13 <(env -i bash -c \'compgen -v\' | sort) <(compgen -v | sort) | ' +
      'grep -vE \'^(BASH_|FUNCNAME|PIPESTATUS|_$)\' | while read -r name; do declare -p "$name" 2>/dev/null; done; ' +
      `declare -f; } > ${state}.next && mv ${state}.next ${state}`
  ].join('\n')
  const child = spawn('bash', ['-c', script], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  let stdout = ''
  child.stdout.on('data', (chunk) => { output += chunk; stdout += chunk })
  child.stderr.on('data', (chunk) => { output += chunk })
  const exited = new Promise((resolve) => child.once('close', (code) => resolve(code)))
  const stop = () => { try { process.kill(-child.pid, 'SIGTERM') } catch {} }
  const deadline = Date.now() + timeoutS * 1000
  let code = null
  let matched = false
  while (Date.now() < deadline) {
    if (until?.test(output)) { matched = true; break }
    code = await Promise.race([exited, sleep(200).then(() => null)])
    if (code !== null) break
  }
  stop()
  if (code === null) await Promise.race([exited, sleep(5000)])
  const refused = !block.attributes['expect-error'] && stdout.includes('"success":false')
  if (until) {
    const why = matched ? 'a call was refused' : `its output did not match /${block.attributes.until}/ in ${timeoutS} s`
    return { output, ok: matched && !refused, why }
  }
  if (code === null) return { output, ok: false, why: `still running after ${timeoutS} s` }
  const why = code !== 0 ? `exit code ${code}` : 'a call was refused ("success":false)'
  return { output, ok: code === 0 && !refused, why }
}

const toRun = files.filter((file) => file.runs.length > 0)
const dir = scratch()
let instance
try {
  typeCheck(dir)
  if (toRun.length > 0) {
    instance = await startInstance({ dir })
    console.log(`live instance at ${instance.baseUrl} (embedded database in ${instance.dataDir})`)
    // What a reader has at hand: the service's address and the demo key the first start printed.
    const env = { ...process.env, SELLER_API_URL: instance.baseUrl, SELLER_API_KEY: instance.apiKey }
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'BOT_CODES_FILE', 'BOT_STATE_FILE']) delete env[name]
    for (const [n, file] of toRun.entries()) {
      const state = join(dir, `.session-${n}`)
      let broken = false
      for (const block of file.runs) {
        const what = `${file.name}:${block.line}: ${block.body.trim().split('\n')[0].slice(0, 80)}`
        if (broken) { result(false, what, 'not run: an earlier block of the session failed'); continue }
        const { output, ok, why } = await runBlock(dir, env, state, block)
        result(ok, what, ok ? '' : `${why}\n${output}`)
        if (!ok) broken = true
      }
    }
  }
} catch (err) {
  result(false, 'the live instance', err.message)
} finally {
  await instance?.stop()
  rmSync(dir, { recursive: true, force: true })
}
console.log(`docs examples: ${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
