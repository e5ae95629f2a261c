// The benches' settings (scripts/bench/settings.ts, docs/performance.md
// "Reproduce"): each bench gets its own defaults, a value is converted to its type
// and checked against its range, and a bad value or an unknown BENCH_ name stops
// a bench with one line before it does any work.
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import t from 'tap'
import { BenchSettingsError, loadBenchSettings } from '../../scripts/bench/settings.js'
import { LOCAL_DATABASE_URL } from '../fixtures/local-servers.js'

const repo = resolve(import.meta.dirname, '..', '..')

const problems = (bench: Parameters<typeof loadBenchSettings>[0], env: Record<string, string>) => {
  try {
    loadBenchSettings(bench, env)
    return []
  } catch (err) {
    if (!(err instanceof BenchSettingsError)) throw err
    return err.problems
  }
}

t.test('each bench reads its own variables, with its own defaults', async (t) => {
  const webhooks = loadBenchSettings('bench:webhooks', {})
  t.equal(webhooks.BENCH_DB, 'seller_api_bench_webhooks')
  t.equal(webhooks.BENCH_RATE, 200)
  t.equal(webhooks.BENCH_DURATION, 30)
  t.equal(webhooks.BENCH_INSTANCES, 1)
  t.equal(webhooks.BENCH_SOURCE, 'store')
  t.equal(webhooks.BENCH_KEEP_DB, false)
  t.equal(webhooks.DATABASE_URL, LOCAL_DATABASE_URL)
  const delivery = loadBenchSettings('bench:delivery', {})
  t.equal(delivery.BENCH_RATE, 100)
  t.equal(delivery.BENCH_INSTANCES, 2)
  const main = loadBenchSettings('bench', {})
  t.equal(main.BENCH_DURATION, 6)
  t.equal(main.BENCH_ONLY, 'reads,writes,backlog,table,embedded,held,stock,claims,feed,chat-rules')
  t.equal(main.BENCH_POOLER_URL, undefined)
  t.same(loadBenchSettings('bench:capacity', {}), { BENCH_OPS: 200 }, 'capacity reads BENCH_OPS alone')
})

t.test('values are converted to their type; empty means unset', async (t) => {
  const settings = loadBenchSettings('bench', { BENCH_RUNS: '2', BENCH_DURATION: '1.5', BENCH_KEEP_DB: '1', BENCH_BASELINE_PREPARE: '0', BENCH_ONLY: 'reads, stock', BENCH_DB: '' })
  t.equal(settings.BENCH_RUNS, 2)
  t.equal(settings.BENCH_DURATION, 1.5)
  t.equal(settings.BENCH_KEEP_DB, true)
  t.equal(settings.BENCH_BASELINE_PREPARE, false)
  t.equal(settings.BENCH_ONLY, 'reads, stock')
  t.equal(settings.BENCH_DB, 'seller_api_bench')
})

t.test('a bad value is one line naming the variable and what it accepts', async (t) => {
  t.same(problems('bench:webhooks', { BENCH_RATE: 'fast' }), ['Invalid bench setting: BENCH_RATE="fast": expected a number from 1 to 10000 (a second).'])
  t.same(problems('bench:delivery', { BENCH_INSTANCES: '1.5' }), ['Invalid bench setting: BENCH_INSTANCES="1.5": expected an integer from 1 to 16.'], 'not cut to 1')
  t.same(problems('bench', { BENCH_ONLY: 'reads,wrtes' }), ['Invalid bench setting: BENCH_ONLY="reads,wrtes": expected comma-separated names among reads, writes, backlog, table, embedded, held, stock, claims, feed, chat-rules.'])
  t.same(problems('bench:events', { BENCH_KEEP_DB: 'yes' }), ['Invalid bench setting: BENCH_KEEP_DB="yes": expected 1 or 0 (true or false).'])
  t.same(problems('bench', { BENCH_DB: 'x"; drop' }), ['Invalid bench setting: BENCH_DB="x\\"; drop": expected 1–50 characters of a-z, 0-9 and _, not starting with a digit.'])
  t.same(problems('bench:stall', { DATABASE_URL: 'mysql://user:secret@db/app' }), ['Invalid bench setting: DATABASE_URL=(value hidden): expected a postgres:// or postgresql:// URL.'], 'a URL is never echoed')
  t.same(problems('bench:capacity', { BENCH_DURATON: '3' }), ['Unknown bench setting: BENCH_DURATON (the benches\' variables are listed in scripts/bench/settings.ts).'])
  t.same(problems('bench:capacity', { BENCH_RATE: 'fast' }), [], 'a variable the bench does not read is not checked')
})

t.test('a bench with a bad value exits 1 with that line, before any work', async (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bench/webhooks.ts'], {
    cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH, BENCH_RATE: '0' }
  })
  t.equal(run.status, 1)
  t.equal(run.stderr, 'npm run bench:webhooks: Invalid bench setting: BENCH_RATE="0": expected a number from 1 to 10000 (a second).\n')
  t.equal(run.stdout, '')
})
