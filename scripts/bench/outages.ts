// `npm run bench:outages`: how fast the service answers while Postgres or Redis is
// away, and how soon it uses them again (docs/reliability.md). The outage tests
// (test/plugins/database-outage.test.ts, redis-outage.test.ts) assert the behaviour;
// the times are measured here, where a busy machine stretches a figure instead of
// failing a test.
//
// The app runs in this process (buildApp), on a scratch database of DATABASE_URL
// and on REDIS_URL, each reached through a TCP relay (test/fixtures/tcp-relay.ts)
// that can cut the line (Postgres: connections dropped, the port refusing) or hang
// it (Redis: connections open, nothing answered). 8 request loops
// (test/fixtures/load.ts) send GET /v1/currency-rates throughout:
//   Postgres: 0.5 s of load, the line cut for 2 s, then restored: cut → first 503,
//     slowest answer while down, restore → first 200.
//   Redis: 1 s of load, Redis hung for 3 s, then resumed: hang → breaker open, the
//     plain requests' latency while it is skipped over the median before, resume →
//     Redis used again.
// Targets (docs/reliability.md): 503 within 1 s, recovery within 2 s (Postgres);
// < 50 ms extra per request, in use again within 3 s (Redis).
//
// Settings (scripts/bench/settings.ts): DATABASE_URL, REDIS_URL.
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp } from '../../app.js'
import { loadConfig } from '../../plugins/config.js'
import { percentile, slowest, startLoad, type Sample } from '../../test/fixtures/load.js'
import { tcpRelay, viaRelay } from '../../test/fixtures/tcp-relay.js'
import { until } from '../../test/fixtures/until.js'
import { createDatabase, databaseUrl, dropDatabase } from './seed.js'
import { benchSettings } from './settings.js'

const { DATABASE_URL, REDIS_URL } = benchSettings('bench:outages')
const TOKEN = 'outages-bench-internal-token-0123456789'
const scratch = `seller_api_outages_${process.pid}`
const log = (message: string) => { process.stderr.write(`[bench:outages] ${message}\n`) }

/** The app on the scratch database and Redis, each through a relay of its own. */
async function appBehindRelays () {
  const [db, redis] = [new URL(databaseUrl(DATABASE_URL, scratch)), new URL(REDIS_URL)]
  const dbRelay = await tcpRelay(db.hostname, Number(db.port || 5432))
  const redisRelay = await tcpRelay(redis.hostname, Number(redis.port || 6379))
  const config = loadConfig({}, {
    DATABASE_URL: viaRelay(db.toString(), dbRelay),
    REDIS_URL: viaRelay(REDIS_URL, redisRelay),
    REDIS_PREFIX: `${scratch}:`,
    INTERNAL_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: 1_000_000,
    PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0
  })
  const app = await buildApp({ config })
  const internal = { authorization: `Bearer ${TOKEN}` }
  const shop = await app.inject({ method: 'POST', url: '/internal/v1/shops', headers: internal, payload: { name: 'Outages' } })
  const key = await app.inject({
    method: 'POST', url: `/internal/v1/shops/${shop.json().data.shop.id}/api-keys`, headers: internal, payload: { name: 'bench' }
  })
  const headers = { authorization: `Bearer ${key.json().data.secret}` }
  const send = () => app.inject({ method: 'GET', url: '/v1/currency-rates', headers })
  const close = async () => {
    await app.close()
    await Promise.all([dbRelay.cut(), redisRelay.cut()])
  }
  return { app, dbRelay, redisRelay, send, close }
}

const latencies = (samples: Sample[]) => samples.map((s) => s.endedAt - s.startedAt)

async function postgresOutage (): Promise<string[]> {
  const { app, dbRelay, send, close } = await appBehindRelays()
  try {
    const load = startLoad(send, 8)
    await sleep(500)
    const cutAt = Date.now()
    await dbRelay.cut()
    await sleep(2000)
    const restoredAt = Date.now()
    await dbRelay.restore()
    await until(() => load.samples.some((s) => s.statusCode === 200 && s.startedAt >= restoredAt), 30_000, 50)
    await sleep(500)
    const samples = await load.stop()
    const first503 = samples.filter((s) => s.statusCode === 503 && s.endedAt >= cutAt).sort((a, b) => a.endedAt - b.endedAt)[0]
    const first200 = samples.filter((s) => s.statusCode === 200 && s.startedAt >= restoredAt)
      .sort((a, b) => a.endedAt - b.endedAt)[0]
    const odd = samples.filter((s) => s.statusCode !== 200 && s.statusCode !== 503).length
    return [
      `Postgres cut for 2 s under 8 request loops (${samples.length} requests, ${odd} neither 200 nor 503):`,
      `  cut -> first 503: ${first503 ? first503.endedAt - cutAt : 'none'} ms (target 1 000 ms)`,
      `  slowest answer while down: ${slowest(samples.filter((s) => s.startedAt >= cutAt && s.startedAt < restoredAt))} ms`,
      `  restore -> first 200: ${first200 ? first200.endedAt - restoredAt : 'none'} ms (target 2 000 ms); ` +
        `breaker ${app.dbHealth.state}`
    ]
  } finally {
    await close()
  }
}

async function redisOutage (): Promise<string[]> {
  const { app, redisRelay, send, close } = await appBehindRelays()
  try {
    const load = startLoad(send, 8)
    await sleep(1000)
    const hungAt = Date.now()
    redisRelay.pause()
    // A plain request's rate-limit command meets the hung Redis and times out: the breaker opens.
    await until(() => app.redisHealth!.state !== 'closed', 30_000, 10)
    const openedAfter = Date.now() - hungAt
    await sleep(3000)
    const resumedAt = Date.now()
    redisRelay.resume()
    await until(() => app.redisHealth!.state === 'closed', 30_000, 10)
    const recoveredAfter = Date.now() - resumedAt
    await sleep(500)
    const samples = await load.stop()
    const before = latencies(samples.filter((s) => s.endedAt < hungAt))
    const skipped = latencies(samples.filter((s) => s.startedAt > hungAt + openedAfter + 100 && s.endedAt < resumedAt))
    const median = percentile(before, 0.5)
    return [
      `Redis hung for 3 s under 8 request loops (${samples.length} requests, ${samples.filter((s) => s.statusCode !== 200).length} not 200):`,
      `  hang -> breaker open: ${openedAfter} ms (the command timeout is 500 ms)`,
      `  plain requests while skipped (${skipped.length}): median ${percentile(skipped, 0.5) - median} ms, ` +
        `p95 ${percentile(skipped, 0.95) - median} ms over the ${median} ms median before (target < 50 ms)`,
      `  resume -> Redis used again: ${recoveredAfter} ms (target 3 000 ms)`
    ]
  } finally {
    await close()
  }
}

try {
  log(`migrating ${scratch}`)
  await createDatabase(DATABASE_URL, scratch)
  const loadBefore = os.loadavg()[0]!.toFixed(2)
  log('Postgres cut under load')
  const postgresLines = await postgresOutage()
  log('Redis hung under load')
  const lines = [...postgresLines, ...await redisOutage()]
  process.stdout.write(['', ...lines, '',
    `Machine: ${os.cpus().length} CPUs, Node ${process.version}; load average ${loadBefore} before, ` +
    `${os.loadavg()[0]!.toFixed(2)} after`, ''].join('\n'))
} finally {
  await dropDatabase(DATABASE_URL, scratch)
}
