// Load with autocannon and what a measurement records: throughput, latency (kept
// here with microsecond precision), and the CPU per request of the server, its
// Postgres backends and Redis.
import { createRequire } from 'node:module'
import type postgres from 'postgres'
import type { Redis } from 'ioredis'
import { backendCpuSeconds, backendCpuSince, backendsSettled, cpuSeconds, log, sleep, type Server } from './processes.js'

interface Histogram { average: number, mean: number, stddev: number, min: number, max: number, total: number, p50: number, p90: number, p99: number }
interface AutocannonResult {
  requests: Histogram
  latency: Histogram
  errors: number
  timeouts: number
  non2xx: number
  duration: number
  statusCodeStats?: Record<string, { count: number }>
}
export interface RawRequest { method: string, path: string, headers: Record<string, string>, body?: string }
interface AutocannonOptions {
  url: string
  connections: number
  duration: number
  maxOverallRequests?: number
  pipelining?: number
  timeout?: number
  requests: Array<{ setupRequest: (request: RawRequest) => RawRequest }>
}
type Run = Promise<AutocannonResult> & { on: (event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void) => void }
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Run

/** Builds the next request; `null` when the workload has no request left. */
export type NextRequest = () => { method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string }

export interface Workload {
  name: string
  next: NextRequest
  /** How many requests the workload can give at most (writes consume their orders). */
  capacity?: number
}

export interface Measure {
  rps: number
  p50: number
  p99: number
  requests: number
  /** CPU per request in ms: the server process, its Postgres backends, Redis (the whole shared server). */
  nodeMs: number
  postgresMs: number
  redisMs: number
  /** Redis commands per request, those run inside scripts included (INFO commandstats; other clients of the shared Redis count too). */
  redisCalls: number
}

export interface LoadSettings {
  connections: number
  monitor: postgres.Sql
  redis: Redis | null
}

/** The q-quantile of sorted values. */
const quantile = (sorted: Float64Array, q: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/**
 * Runs the workload; latencies are kept here with microsecond precision
 * (autocannon's own histogram rounds to whole milliseconds).
 */
async function drive (server: Server, workload: Workload, seconds: number, settings: LoadSettings, maxRequests?: number): Promise<AutocannonResult & { times: number[] }> {
  const times: number[] = []
  const running = autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: settings.connections,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
    ...(maxRequests === undefined ? {} : { maxOverallRequests: maxRequests }),
    requests: [{
      setupRequest (request) {
        const next = workload.next()
        request.method = next.method
        request.path = next.path
        request.headers = { ...request.headers, ...next.headers }
        if (next.body !== undefined) request.body = next.body
        return request
      }
    }]
  })
  running.on('response', (_client, statusCode, _bytes, ms) => { if (statusCode < 300) times.push(ms) })
  const result = await running
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${server.name} ${workload.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts ` +
      `(status codes: ${JSON.stringify(result.statusCodeStats ?? {})})\n${server.output.slice(-10).join('\n')}`)
  }
  if (server.exited) throw new Error(`${server.name} died during ${workload.name}:\n${server.output.join('\n')}`)
  return { ...result, times }
}

async function redisCounters (redis: Redis | null): Promise<{ cpu: number, calls: number }> {
  if (!redis) return { cpu: NaN, calls: NaN }
  try {
    const [cpu, commands] = await Promise.all([redis.info('cpu'), redis.info('commandstats')])
    const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(cpu)?.[1] ?? NaN)
    let calls = 0
    for (const match of commands.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) calls += Number(match[1])
    return { cpu: field('used_cpu_sys') + field('used_cpu_user'), calls }
  } catch {
    return { cpu: NaN, calls: NaN }
  }
}

/** One server under one workload. */
export interface Side { server: Server, database: string, workload: Workload }

export interface Schedule {
  /** Seconds of load on each side before measuring (not counted). */
  warmupS: number
  /** The measured time of each side is cut into this many slices, sides alternating. */
  slices: number
  sliceS: number
}

class Tally {
  requests = 0
  seconds = 0
  times: number[] = []
  node = 0
  postgres = 0
  backends = 0
  redisCpu = 0
  redisCalls = 0
  used = 0

  result (): Measure {
    const sorted = Float64Array.from(this.times).sort()
    const n = this.requests
    return {
      rps: n / this.seconds,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      requests: n,
      nodeMs: (this.node * 1000) / n,
      postgresMs: this.backends > 0 ? (this.postgres * 1000) / n : NaN,
      redisMs: (this.redisCpu * 1000) / n,
      redisCalls: this.redisCalls / n
    }
  }
}

async function slice (side: Side, tally: Tally, seconds: number, settings: LoadSettings) {
  const { server, database, workload } = side
  const counting: Workload = { ...workload, next: () => { tally.used++; return workload.next() } }
  const left = workload.capacity === undefined ? undefined : workload.capacity - tally.used
  if (left !== undefined && left < settings.connections) throw new Error(`${workload.name} on ${server.name}: out of prepared orders; raise BENCH_WRITE_ORDERS`)
  const backends = server.applicationName ? await backendCpuSeconds(settings.monitor, database, server.applicationName) : new Map<number, number>()
  const redisBefore = await redisCounters(settings.redis)
  const cpuBefore = cpuSeconds(server.child.pid!)
  const result = await drive(server, counting, seconds, settings, left)
  tally.node += cpuSeconds(server.child.pid!) - cpuBefore
  tally.postgres += backendCpuSince(backends)
  tally.backends = Math.max(tally.backends, backends.size)
  const redisAfter = await redisCounters(settings.redis)
  tally.redisCpu += redisAfter.cpu - redisBefore.cpu
  tally.redisCalls += redisAfter.calls - redisBefore.calls - 2 // minus the two INFO calls of redisCounters
  tally.requests += result.requests.total
  tally.seconds += result.duration
  for (const t of result.times) tally.times.push(t)
  // The load generator stops with requests in flight; the server finishes them before the other side's
  // slice begins, so the sides never run at once (their transactions could deadlock on each other's rows).
  if (server.applicationName) await backendsSettled(settings.monitor, database, server.applicationName)
  else await sleep(250)
}

/**
 * Measures the sides under the same conditions: after a warm-up of each, the
 * measured time is cut into slices and the sides take turns (A B, B A, …), so a
 * change of the machine's load between them weighs on both alike.
 */
export async function measureSides (sides: Side[], schedule: Schedule, settings: LoadSettings): Promise<Measure[]> {
  const tallies = sides.map(() => new Tally())
  if (schedule.warmupS > 0) {
    for (const [i, side] of sides.entries()) {
      const warm = new Tally()
      await slice(side, warm, schedule.warmupS, settings)
      tallies[i].used = warm.used
    }
  }
  for (let n = 0; n < schedule.slices; n++) {
    const order = n % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i)
    for (const i of order) await slice(sides[i], tallies[i], schedule.sliceS, settings)
  }
  return sides.map((side, i) => {
    const m = tallies[i].result()
    log(`${side.server.name.padEnd(16)} ${side.workload.name.padEnd(18)} ${m.rps.toFixed(0).padStart(5)} req/s  p50 ${m.p50.toFixed(1)} ms  p99 ${m.p99.toFixed(1)} ms  ` +
      `CPU ms/req: node ${m.nodeMs.toFixed(3)}, postgres ${m.postgresMs.toFixed(3)} (${tallies[i].backends} backends), redis ${m.redisMs.toFixed(3)}; ` +
      `redis commands/req ${m.redisCalls.toFixed(2)}`)
    return m
  })
}
