// Shared by the benchmarks besides `npm run bench`'s own modules: for
// `npm run bench:events`, autocannon, starting and stopping servers, a process's
// memory, and the bench database (claimed under an advisory lock, seeded with the
// main bench's reader shops from scripts/bench/seed.ts, dropped at the end); for
// it, bench:webhooks and bench:delivery, the run's clock (elapsed). See
// docs/performance.md.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import postgres from 'postgres'
import { log } from './processes.js'
import { createDatabase, databaseUrl, dropDatabase, READER_SHOPS, seedReaders } from './seed.js'

// Processes (start, wait, stop, CPU) are the main bench's: one copy for every benchmark.
export { cleanUpOnExit, cpuSeconds, freePort, log, root, run, sleep, startServer, stopAllServers, stopServer, waitReady, type Server } from './processes.js'

/** The seeded shops (scripts/bench/seed.ts seedReaders): one key each, 120 orders each, chats. */
export const SHOPS = READER_SHOPS

// ---------------------------------------------------------------- autocannon (no bundled types)

interface Histogram { average: number, mean: number, stddev: number, min: number, max: number, total: number, p50: number, p90: number, p99: number }
export interface AutocannonResult {
  requests: Histogram
  latency: Histogram
  throughput: Histogram
  errors: number
  timeouts: number
  non2xx: number
  duration: number
  statusCodeStats?: Record<string, { count: number }>
}
export interface RawRequest { method: string, path: string, headers: Record<string, string> }
export interface AutocannonOptions {
  url: string
  connections: number
  duration: number
  pipelining?: number
  timeout?: number
  requests: Array<{ method: string, setupRequest: (request: RawRequest) => RawRequest }>
}
export const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>

// ---------------------------------------------------------------- helpers

const started = Date.now()
export const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`

/** Peak and current resident set of a process, in MB. */
export function memory (pid: number): { peakMb: number, rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 }
}

// ---------------------------------------------------------------- database

export interface Fixtures {
  secrets: string[]
  polls: Array<{ secret: string, orderId: string, cursor: string }>
  orderCount: number
  messageCount: number
}

export interface BenchDatabase {
  name: string
  url: string
  /** A connection to the server that holds this run's claim; also for monitoring queries. */
  monitor: postgres.Sql
  /** Creates (or recreates) the database, migrates and seeds it. */
  seed: () => Promise<Fixtures>
  /** Drops the database (unless `keep`: BENCH_KEEP_DB) and gives up the claim. */
  release: () => Promise<void>
}

/**
 * One run per bench database at a time: a second one would drop the first one's
 * database under it (and both would measure each other). The session lock lives
 * on the monitor connection until release.
 */
export async function claimBenchDatabase (serverUrl: string, name: string, keep: boolean): Promise<BenchDatabase> {
  const monitor = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  const [{ locked }] = await monitor<{ locked: boolean }[]>`select pg_try_advisory_lock(7310, hashtext(${name})) as locked`
  if (!locked) {
    await monitor.end({ timeout: 2 })
    throw new Error(`another benchmark is using ${name} right now; wait for it (or set BENCH_DB)`)
  }
  const url = databaseUrl(serverUrl, name)
  return {
    name,
    url,
    monitor,
    seed: () => createDatabase(serverUrl, name).then(() => seedReaders(url)),
    async release () {
      try {
        if (keep) log(`kept database ${name} (BENCH_KEEP_DB=1)`)
        else await dropDatabase(serverUrl, name)
      } catch (err) {
        log(`could not drop ${name}: ${(err as Error).message}`)
      }
      await monitor.end({ timeout: 2 })
    }
  }
}
