// The bench's child processes (the service, the baselines) and what it reads
// about them from /proc: CPU time, peak memory. Linux only, like the bench.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import type postgres from 'postgres'
import ts from 'typescript'
import { until } from '../../test/fixtures/until.js'

export const root = fileURLToPath(new URL('../..', import.meta.url))

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface Server {
  name: string
  port: number
  child: ChildProcess
  output: string[]
  exited: boolean
  /** Postgres application_name of its pool, to find its backends; null without Postgres. */
  applicationName: string | null
}

const servers: Server[] = []

export function startServer (name: string, args: string[], env: Record<string, string>, port: number, applicationName: string | null): Server {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...env, PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] })
  const server: Server = { name, port, child, output: [], exited: false, applicationName }
  const keep = (chunk: Buffer) => {
    server.output.push(...chunk.toString().split('\n').filter(Boolean))
    if (server.output.length > 40) server.output.splice(0, server.output.length - 40)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  child.on('exit', () => { server.exited = true })
  servers.push(server)
  return server
}

export async function waitReady (server: Server, timeoutMs = 60_000) {
  const ready = await until(async () => {
    if (server.exited) throw new Error(`${server.name} exited during start:\n${server.output.join('\n')}`)
    try {
      return (await fetch(`http://127.0.0.1:${server.port}/healthz`)).ok
    } catch {
      return false // not listening yet
    }
  }, timeoutMs, 100)
  if (!ready) throw new Error(`${server.name} not ready after ${timeoutMs} ms:\n${server.output.join('\n')}`)
}

export async function stopServer (server: Server) {
  if (server.exited) return
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()))
  server.child.kill('SIGTERM')
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

export const stopAllServers = () => Promise.allSettled(servers.map(stopServer))
export const killAllServers = () => { for (const s of servers) if (!s.exited) s.child.kill('SIGKILL') }

/** Runs `cleanup` and exits on SIGINT / SIGTERM, or when the run goes past `deadlineMs` (killing the servers first). */
export function cleanUpOnExit (deadlineMs: number, cleanup: () => Promise<void>) {
  setTimeout(() => {
    log(`over the ${deadlineMs / 1000} s budget: stopping`)
    killAllServers()
    cleanup().finally(() => process.exit(2))
  }, deadlineMs).unref()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { cleanup().finally(() => process.exit(130)) })
  }
}

/**
 * A self-contained TypeScript file of scripts/bench/ (the baseline) as plain ESM
 * for `node --input-type=module --eval`: no tsx loader in its memory.
 */
export function transpiled (file: string): string {
  const source = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')
  return ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
}

/**
 * The service as its operators start it: `node dist/server.js` (`npm run build`
 * first), or `tsx server.ts` with `fromSource`, on a free port of 127.0.0.1 with
 * `env` over the bench's defaults (production, warnings only, no rate limit in
 * the way). Its Postgres pool's application_name is `shop-seller-api`.
 */
export async function startService (name: string, env: Record<string, string>, options: { nodeArgs?: string[], fromSource?: boolean } = {}): Promise<Server> {
  const port = await freePort()
  const entry = options.fromSource ? ['--import', 'tsx', 'server.ts'] : ['dist/server.js']
  return startServer(name, [...options.nodeArgs ?? [], ...entry], {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    RATE_LIMIT_MAX: '1000000000',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    // Stopped at the end of a bench: no drain (and its CPU profile, with --cpu-prof, is written).
    SHUTDOWN_DRAIN_MS: '0',
    // A bench that seals values gives its key; the others run as they always did, values in clear.
    VALUES_IN_CLEAR: 'true',
    ...env
  }, port, env.DATABASE_URL ? 'shop-seller-api' : null)
}

/** One API call as a client makes it: its `data`, or an error naming the call and its answer. */
export async function call (server: Server | string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const base = typeof server === 'string' ? server : `http://127.0.0.1:${server.port}`
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return text === '' ? undefined : (JSON.parse(text) as { data: any }).data
}

/** A product body for POST /v1/products: external, 499.90, one required Email field. */
export const productBody = (categoryId: string, title: string) => ({
  categoryId,
  title,
  description: 'Global activation key.',
  isActive: true,
  external: true,
  currencyRateId: '',
  price: 499.9,
  imageId: '',
  employeeReward: { type: 'percent', value: 0 },
  fields: [{ type: 'text', label: 'Email', required: true, multiple: false, options: [] }],
  filters: []
})

/** Runs a command in the repository root; rejects with its output when it fails. */
export function run (command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => { output += c.toString() })
    child.stderr.on('data', (c: Buffer) => { output += c.toString() })
    child.on('error', reject)
    child.on('exit', (code) => code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${output}`)))
  })
}

/** Peak and current resident set of a process, in MB. */
export function memory (pid: number): { peakMb: number, rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 }
}

const started = Date.now()
/** Seconds since the bench started, for its log lines. */
export const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`

const clockTicks = (() => { try { return Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100 } catch { return 100 } })()

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // fields from #3 on
  return (Number(fields[11]) + Number(fields[12])) / clockTicks // utime #14, stime #15
}

/** CPU seconds so far of the Postgres backends of one pool (by application_name; Postgres must be local). */
export async function backendCpuSeconds (monitor: postgres.Sql, database: string, applicationName: string): Promise<Map<number, number>> {
  const rows = await monitor<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = ${database} and application_name = ${applicationName}`
  const cpu = new Map<number, number>()
  for (const { pid } of rows) {
    try { cpu.set(pid, cpuSeconds(pid)) } catch { /* not local, or gone */ }
  }
  return cpu
}

/**
 * Waits (at most `timeoutMs`) until no backend of `applicationName` is running a
 * statement or holding a transaction open: what a load generator stopped with
 * requests in flight left the server to finish.
 */
export async function backendsSettled (
  monitor: postgres.Sql, database: string, applicationName: string, timeoutMs = 3000
): Promise<void> {
  await until(async () => {
    const [{ busy }] = await monitor<{ busy: number }[]>`
      select count(*)::int as busy from pg_stat_activity where datname = ${database}
        and application_name = ${applicationName} and state in ('active', 'idle in transaction')`
    return busy === 0
  }, timeoutMs)
}

/** CPU seconds used since `before` by the backends in it that still exist. */
export function backendCpuSince (before: Map<number, number>): number {
  let used = 0
  for (const [pid, seconds] of before) {
    try { used += cpuSeconds(pid) - seconds } catch { /* closed meanwhile */ }
  }
  return used
}
