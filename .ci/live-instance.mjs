// A live instance for CI's steps that exercise the service as a user does
// (.ci/docs-examples.mjs, .ci/docs-page.mjs): `npm start`'s script on the
// embedded default (no DATABASE_URL, no REDIS_URL) with its data in a
// temporary directory, on a free port. Resolves once /healthz answers, with the
// demo API key the first start printed and the operator token it kept.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))

export function freePort () {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    }).on('error', reject)
  })
}

/** Starts the service in `dir` (a fresh temporary directory when absent); `dir/data` is its DATA_DIR. */
export async function startInstance ({ dir = mkdtempSync(join(tmpdir(), 'seller-api-live-')), timeoutS = 240 } = {}) {
  const port = await freePort()
  const dataDir = join(dir, 'data')
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }
  delete env.DATABASE_URL
  delete env.REDIS_URL
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')],
    { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => { output += chunk })
  child.stderr.on('data', (chunk) => { output += chunk })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const baseUrl = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try { process.kill(-child.pid, 'SIGTERM') } catch {}
      await Promise.race([exited, sleep(15_000)])
      try { process.kill(-child.pid, 'SIGKILL') } catch {}
    }
  }
  const deadline = Date.now() + timeoutS * 1000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break
    const apiKey = output.match(/demo API key: (service_sk_[A-Za-z0-9]{40})/)?.[1]
    if (apiKey) {
      const healthy = await fetch(`${baseUrl}/healthz`).then((res) => res.ok, () => false)
      if (healthy) {
        const internalToken = readFileSync(join(dataDir, 'internal-token'), 'utf8').trim()
        return { baseUrl, dir, dataDir, apiKey, internalToken, output: () => output, stop }
      }
    }
    await sleep(500)
  }
  await stop()
  rmSync(dir, { recursive: true, force: true })
  throw new Error(`the service did not become healthy in ${timeoutS} s:\n${output}`)
}
