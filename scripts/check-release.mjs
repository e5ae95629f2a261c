// CI's check of the production install path and of the Dockerfile, without
// Docker (it cannot pull images here): in a scratch directory, build the
// release with scripts/build-release.sh (what the Dockerfile's build stage
// runs), then start it with the Dockerfile's own ENV and CMD, wait for its
// HEALTHCHECK command to pass, call the API with the printed demo key, use the
// CLI as `node dist/cli.js`, and stop it with SIGTERM. Prints the time to
// healthy (with an up-to-date build) and the RSS.
//   node scripts/check-release.mjs            (RELEASE_CHECK_PORT picks the port)
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** ENV, CMD and HEALTHCHECK's command of the Dockerfile's last stage (exec forms). */
function dockerfileRuntime () {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8')
  const lastStage = text.slice(text.lastIndexOf('\nFROM '))
  const env = {}
  let cmd, healthcheck
  for (const line of lastStage.split('\n')) {
    const [instruction, ...rest] = line.trim().split(/\s+/)
    const args = rest.join(' ')
    if (instruction === 'ENV') {
      for (const pair of rest) {
        env[pair.slice(0,
          pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1)
      }
    }
    if (instruction === 'CMD') cmd = JSON.parse(args)
    if (instruction === 'HEALTHCHECK') healthcheck = JSON.parse(args.slice(args.indexOf(' CMD ') + 5))
  }
  if (!cmd || !healthcheck) throw new Error('the Dockerfile has no exec-form CMD or HEALTHCHECK')
  return { env, cmd, healthcheck }
}

function freePort () {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

function check (ok, message) {
  if (!ok) throw new Error(`release check failed: ${message}`)
  console.log(`ok: ${message}`)
}

const scratch = mkdtempSync(join(tmpdir(), 'seller-api-release-'))
const app = join(scratch, 'app')
let server
try {
  const started = Date.now()
  execFileSync(join(root, 'scripts', 'build-release.sh'), [root, app], { stdio: 'inherit' })
  console.log(`release built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  check(!existsSync(join(app, 'node_modules', 'typescript')) && existsSync(join(app, 'dist', 'server.js')),
    'dist/ is built and dev dependencies are pruned (no typescript)')

  const { env, cmd, healthcheck } = dockerfileRuntime()
  const port = Number(process.env.RELEASE_CHECK_PORT) || await freePort()
  // The Dockerfile's ENV, but on 127.0.0.1 (only local traffic here), a free port and a scratch data directory.
  const runEnv = {
    PATH: process.env.PATH,
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: join(scratch, 'data'),
    LOG_LEVEL: 'warn'
  }
  const base = `http://127.0.0.1:${port}`

  const measure = async (label) => {
    const t0 = Date.now()
    const child = spawn(cmd[0], cmd.slice(1), { cwd: app, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => { output += chunk })
    child.stderr.on('data', (chunk) => { output += chunk })
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
    for (let i = 0; i < 600; i++) {
      if (child.exitCode !== null) throw new Error(`the release exited (${child.exitCode}): ${output}`)
      if (spawnSync(healthcheck[0], healthcheck.slice(1), { cwd: app, env: runEnv }).status === 0) break
      await sleep(100)
    }
    check(spawnSync(healthcheck[0], healthcheck.slice(1), { cwd: app, env: runEnv }).status === 0, `${label}: ` +
      `the HEALTHCHECK command passes after ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    return { child, output: () => output, exited }
  }

  server = await measure('first start (creates the embedded database)')
  // The health checks ran synchronously: let the child's output arrive first.
  let key
  for (let i = 0; i < 100 && !key; i++) {
    await sleep(100)
    key = /service_sk_[A-Za-z0-9]{40}/.exec(server.output())?.[0]
  }
  check(key, 'the first start prints a demo key')
  const products = await (await fetch(`${base}/v1/products`, { headers: { authorization: `Bearer ${key}` } })).json()
  check(products.success === true && products.data.products.length === 1, 'the demo key lists the demo ' +
    `product (${JSON.stringify(products).slice(0, 300)})`)

  const refused = spawnSync(process.execPath, ['dist/cli.js', 'key:list', products.data.products[0].id],
    { cwd: app, env: runEnv, encoding: 'utf8' })
  check(refused.status === 1 && /in use by another process/.test(refused.stderr), 'node dist/cli.js refuses ' +
    'the data directory of the running server')
  server.child.kill('SIGTERM')
  check(await server.exited === 0, 'SIGTERM stops it cleanly')

  server = await measure('restart with an up-to-date build')
  const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1]
  console.log(`RSS after the restart: ${Math.round(Number(rss) / 1024)} MB`)
  server.child.kill('SIGTERM')
  check(await server.exited === 0, 'SIGTERM stops it cleanly again')
  server = undefined

  const cli = spawnSync(process.execPath, ['dist/cli.js', 'seed:demo', 'Release check', '--json'],
    { cwd: app, env: runEnv, encoding: 'utf8' })
  check(cli.status === 0 && /^service_sk_/.test(JSON.parse(cli.stdout).secret), 'node dist/cli.js seed:demo ' +
    '--json works on the stopped data directory')
  console.log('release check passed')
} finally {
  if (server) server.child.kill('SIGKILL')
  rmSync(scratch, { recursive: true, force: true })
}
