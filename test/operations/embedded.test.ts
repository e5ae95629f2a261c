// The embedded default, as a newcomer runs it: no DATABASE_URL, no REDIS_URL.
// Start on PGlite, use the printed demo key, create a product, restart, and find
// everything still there (and no second round of demo data); a request in flight
// when SIGTERM arrives still completes.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { request } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { repoRoot, runCli, SERVER_ARGS } from '../fixtures/cli.js'
import { freePort } from '../fixtures/free-port.js'
import { images, multipartBody } from '../fixtures/images.js'
import { productInput } from '../fixtures/products.js'
import { until } from '../fixtures/until.js'

interface Running { child: ChildProcess, output: () => string, stdout: () => string, stderr: () => string, exited: Promise<number | null> }

async function start (env: Record<string, string>): Promise<Running> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, LOG_LEVEL: 'warn' }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'INTERNAL_TOKEN', 'TEST_DATABASE_URL', 'TEST_REDIS_URL']) delete childEnv[name]
  const child = spawn(process.execPath, SERVER_ARGS, { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => { output += chunk; stdout += chunk })
  child.stderr!.on('data', (chunk) => { output += chunk; stderr += chunk })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${env.PORT}/healthz`
  const up = await until(async () => {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
    return (await fetch(url).catch(() => undefined))?.ok === true
  }, 90_000, 100)
  if (up) return { child, output: () => output, stdout: () => stdout, stderr: () => stderr, exited }
  child.kill('SIGKILL')
  throw new Error(`server did not start: ${output}`)
}

t.test('embedded mode survives a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'seller-api-embedded-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  // No PUBLIC_BASE_URL: it follows HOST and PORT.
  const env = { PORT: String(port), DATA_DIR: dataDir }

  const first = await start(env)
  t.teardown(() => { first.child.kill('SIGKILL') })
  const key = /demo API key: (service_sk_[A-Za-z0-9]{40})/.exec(first.output())?.[1]
  t.ok(key, 'the demo key is printed on the first start')
  const token = readFileSync(join(dataDir, 'internal-token'), 'utf8').trim()
  t.ok(first.output().includes(token), 'the generated internal token is printed')
  t.ok(first.stderr().includes(`try: curl -H "Authorization: Bearer ${key}" ${base}/v1/products`), 'the first-run block is on stderr, with this PORT')
  t.notOk(first.stdout().includes(key!), 'never in the JSON log stream')
  const portal = /seller portal: (\S+\/portal\/enter\?token=portal_link_[A-Za-z0-9_-]{43})/.exec(first.stderr())?.[1]
  t.ok(portal?.startsWith(base), 'a seller portal link for the demo shop is printed next to the key')
  t.notOk(first.stdout().includes(portal!.split('token=')[1]), 'its token never in the log stream')
  const entered = await fetch(portal!, { redirect: 'manual' })
  t.equal(entered.status, 303, 'the link opens the portal')
  t.match(entered.headers.get('set-cookie'), /^portal_session=/)
  const openapi = await (await fetch(`${base}/docs/json`)).json()
  t.equal(openapi.servers[0].url, '/', 'a relative server: a generated client is given its deployment\'s address')

  const cli = await runCli({ DATA_DIR: dataDir, DATABASE_URL: undefined, TEST_DATABASE_URL: undefined }, 'shop:create', 'While running')
  t.equal(cli.code, 1, 'the CLI refuses a data directory a running server holds')
  t.match(cli.stderr, /^error: the embedded database in .* is in use by another process \(pid \d+\)/)
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }

  const demo = await (await fetch(`${base}/v1/products`, { headers: auth })).json()
  t.equal(demo.data.products.length, 1, 'the demo product is there')
  t.equal(demo.data.products[0].external, true)
  const categories = (await (await fetch(`${base}/v1/categories`, { headers: auth })).json()).data.categories
  const created = await fetch(`${base}/v1/products`, { method: 'POST', headers: auth, body: JSON.stringify(productInput(categories[0].id, { title: 'Survives restarts' })) })
  t.equal(created.status, 201)
  const productId = (await created.json()).data.product.id
  const shops = await fetch(`${base}/internal/v1/shops`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Operator-made' }) })
  t.equal(shops.status, 201, 'the operator API answers to the generated token')

  first.child.kill('SIGTERM')
  t.equal(await first.exited, 0, 'graceful shutdown on SIGTERM')

  const second = await start(env)
  t.teardown(() => { second.child.kill('SIGKILL') })
  t.notOk(second.output().includes('demo API key'), 'no second round of demo data')
  const again = await fetch(`${base}/v1/products/${productId}`, { headers: auth })
  t.equal(again.status, 200, 'the product is still there, and the key still works')
  t.equal((await again.json()).data.product.title, 'Survives restarts')

  // SIGTERM while an upload is half sent: the request still completes.
  const body = multipartBody([{ name: 'file', filename: 'late.png', contentType: 'image/png', data: images.png }])
  const half = Math.floor(body.payload.length / 2)
  const upload = new Promise<{ status: number, body: string }>((resolve, reject) => {
    const req = request(`${base}/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...body.headers, 'content-length': String(body.payload.length) }
    }, (res) => {
      let text = ''
      res.on('data', (chunk) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.write(body.payload.subarray(0, half))
    setTimeout(() => {
      second.child.kill('SIGTERM')
      setTimeout(() => req.end(body.payload.subarray(half)), 300)
    }, 300)
  })
  const inFlight = await upload
  t.equal(inFlight.status, 201, `the in-flight request finished during shutdown: ${inFlight.body}`)
  t.equal(await second.exited, 0, 'then the process exits cleanly')
})

t.test('a bad configuration stops the start with one line per variable', async (t) => {
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: repoRoot, env: { ...process.env, VALUES_IN_CLEAR: 'true', PORT: 'eighty', RATE_LIMIT_MAX: '0' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stderr.on('data', (chunk) => { output += chunk })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 1)
  t.same(output.trim().split('\n'), [
    'Invalid configuration: PORT="eighty": expected an integer from 0 to 65535.',
    'Invalid configuration: RATE_LIMIT_MAX="0": expected an integer of at least 1.'
  ])
})
