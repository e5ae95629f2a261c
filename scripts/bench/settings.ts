// The benches' settings (docs/performance.md, "Reproduce"): every environment
// variable a bench reads, declared once here with its type and range (a TypeBox
// schema whose description says what it accepts), its meaning, and its default in
// each bench that reads it. A bench takes its settings from benchSettings() at its
// start, never from process.env: a bad value stops it with one line naming the
// variable and what it accepts, and so does a BENCH_ variable no bench knows.
import { Kind, Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** The local servers used when no URL is set (the same as the tests', docs/operating.md). */
const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres'
const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379'

/** The benches, by their npm script. */
export type Bench = 'bench' | 'bench:events' | 'bench:webhooks' | 'bench:delivery' | 'bench:capacity' | 'bench:stall' | 'bench:stats'
  | 'bench:outages'

/** The measurements of `npm run bench` that BENCH_ONLY picks from. */
export const SCENARIOS = ['reads', 'writes', 'backlog', 'table', 'embedded', 'held', 'stock', 'claims', 'feed', 'chat-rules'] as const
export type Scenario = typeof SCENARIOS[number]

interface Variable<T extends TSchema, D> {
  schema: T
  /** One line: what the variable changes. */
  meaning: string
  /** Its default in each bench that reads it (and only those). */
  defaults: D
}

const variable = <T extends TSchema, const D extends Partial<Record<Bench, Static<T> | undefined>>>(schema: T, meaning: string, defaults: D): Variable<T, D> =>
  ({ schema, meaning, defaults })

const integer = (minimum: number, maximum: number, unit = '') =>
  Type.Integer({ minimum, maximum, description: `an integer from ${minimum} to ${maximum}${unit}` })
const number = (minimum: number, maximum: number, unit: string) =>
  Type.Number({ minimum, maximum, description: `a number from ${minimum} to ${maximum}${unit}` })
const flag = Type.Boolean({ description: '1 or 0 (true or false)' })
/** A name for CREATE DATABASE, short enough for the suffixes `npm run bench` adds (_10k, _1m, _stock). */
const databaseName = Type.String({ pattern: '^[a-z_][a-z0-9_]{0,49}$', description: '1–50 characters of a-z, 0-9 and _, not starting with a digit' })
const scenarioList = `(${SCENARIOS.join('|')})`

export const BENCH_VARIABLES = {
  DATABASE_URL: variable(Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// or postgresql:// URL' }),
    'the Postgres server the bench databases are created on (local, for the Postgres CPU figures)',
    {
      bench: LOCAL_DATABASE_URL,
      'bench:events': LOCAL_DATABASE_URL,
      'bench:webhooks': LOCAL_DATABASE_URL,
      'bench:delivery': LOCAL_DATABASE_URL,
      'bench:stall': LOCAL_DATABASE_URL,
      'bench:stats': LOCAL_DATABASE_URL,
      'bench:outages': LOCAL_DATABASE_URL
    }),
  REDIS_URL: variable(Type.String({ pattern: '^rediss?://', description: 'a redis:// or rediss:// URL' }),
    'the Redis of the Postgres-backed services',
    {
      bench: LOCAL_REDIS_URL,
      'bench:events': LOCAL_REDIS_URL,
      'bench:webhooks': LOCAL_REDIS_URL,
      'bench:delivery': LOCAL_REDIS_URL,
      'bench:stall': LOCAL_REDIS_URL,
      'bench:outages': LOCAL_REDIS_URL
    }),
  DB_POOL_MAX: variable(integer(1, 200),
    'the pool size of every server the bench starts (and of the stock bench\'s own pool)',
    { bench: 10, 'bench:events': 10, 'bench:webhooks': 10, 'bench:delivery': 10 }),
  PRESSURE_MAX_EVENT_LOOP_DELAY_MS: variable(Type.Integer({ minimum: 0, description: 'an integer of at least 0 (milliseconds; 0 turns the check off)' }),
    'passed to the services (0 turns shedding off, for a machine busier than the bench); the service\'s default when unset',
    { bench: undefined }),
  BENCH_DB: variable(databaseName,
    'the bench\'s database, dropped, recreated and dropped again at the end; one run per name at a time',
    {
      bench: 'seller_api_bench',
      'bench:events': 'seller_api_bench_events',
      'bench:webhooks': 'seller_api_bench_webhooks',
      'bench:delivery': 'seller_api_bench_delivery',
      'bench:stats': 'seller_api_bench_stats'
    }),
  BENCH_KEEP_DB: variable(flag,
    '1 keeps the bench\'s databases at the end (for EXPLAIN and the like)',
    { bench: false, 'bench:events': false, 'bench:webhooks': false, 'bench:delivery': false, 'bench:stats': false }),
  BENCH_RUNS: variable(integer(1, 20),
    'runs of every measurement; each target is judged on the median over the runs',
    { bench: 3 }),
  BENCH_DURATION: variable(number(1, 3600, ' (seconds)'),
    'seconds measured: per side of a read comparison (bench), per orders-list run (events), of steady load (webhooks, delivery)',
    { bench: 6, 'bench:events': 10, 'bench:webhooks': 30, 'bench:delivery': 20 }),
  BENCH_SHORT_DURATION: variable(number(1, 3600, ' (seconds)'),
    'seconds measured per side of the writes, the embedded measurement and the stock purchases',
    { bench: 3 }),
  BENCH_CONNECTIONS: variable(integer(1, 1000),
    'concurrent connections of the load (autocannon; the stock bench\'s purchasers)',
    { bench: 32, 'bench:events': 16 }),
  BENCH_WRITE_ORDERS: variable(integer(1, 1_000_000),
    'orders prepared for each write measurement (each request uses its own)',
    { bench: 15_000 }),
  BENCH_ONLY: variable(Type.String({ pattern: `^\\s*${scenarioList}(\\s*,\\s*${scenarioList})*\\s*$`, description: `comma-separated names among ${SCENARIOS.join(', ')}` }),
    'the measurements to make (all by default)',
    { bench: SCENARIOS.join(',') }),
  BENCH_NODE_ARGS: variable(Type.String({ description: 'node flags separated by spaces' }),
    'extra node flags for every server, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof',
    { bench: '' }),
  BENCH_BASELINE_PREPARE: variable(flag,
    '0 makes the baseline send unnamed statements (parsed and planned on every call)',
    { bench: true }),
  BENCH_POOLER_URL: variable(Type.String({ pattern: '^postgres(ql)?://', description: 'a postgres:// or postgresql:// URL of a transaction pooler in front of DATABASE_URL\'s server' }),
    'the main service\'s requests go through this pooler, its session work to DATABASE_URL (docs/performance/pgbouncer.md)',
    { bench: undefined }),
  BENCH_BOT_WAVE_PAUSE_MS: variable(integer(0, 60_000, ' (milliseconds)'),
    'the pause between waves of 250 new long polls (a busy machine needs a longer one)',
    { bench: 50, 'bench:events': 50 }),
  BENCH_EVENT_RATE: variable(number(1, 10_000, ' (purchases a second)'),
    'purchases a second on the writer instance',
    { 'bench:events': 100 }),
  BENCH_EVENT_SECONDS: variable(number(1, 3600, ' (seconds)'),
    'seconds of purchases measured',
    { 'bench:events': 20 }),
  BENCH_BOTS_PER_SHOP: variable(integer(1, 100),
    'long-polling bots per shop',
    { 'bench:events': 5 }),
  BENCH_RATE: variable(number(1, 10_000, ' (a second)'),
    'events (webhooks) or purchases (delivery) a second of the steady load',
    { 'bench:webhooks': 200, 'bench:delivery': 100 }),
  BENCH_BACKLOG: variable(integer(1, 1_000_000),
    'events (webhooks) or paid orders (delivery) of the backlog drained at the end',
    { 'bench:webhooks': 10_000, 'bench:delivery': 5000 }),
  BENCH_INSTANCES: variable(integer(1, 16),
    'service instances started',
    { 'bench:webhooks': 1, 'bench:delivery': 2 }),
  BENCH_SHOPS: variable(integer(1, 1000),
    'shops, each with a product and an endpoint pointing at the receiver',
    { 'bench:webhooks': 20, 'bench:delivery': 20 }),
  BENCH_SOURCE: variable(Type.Union([Type.Literal('store'), Type.Literal('api')], { description: 'store or api' }),
    'store: events recorded by the bench process in the event store\'s transaction; api: buyers\' purchases through the service',
    { 'bench:webhooks': 'store' }),
  BENCH_ANSWER_MS: variable(integer(0, 60_000, ' (milliseconds)'),
    'how long the receiver takes to answer a delivery request',
    { 'bench:delivery': 20 }),
  BENCH_OPS: variable(integer(1, 100_000),
    'times each operation is run',
    { 'bench:capacity': 200, 'bench:stats': 100 }),
  STALL_RUNS: variable(integer(1, 100),
    'runs of each request; the worst event-loop delay over them is reported',
    { 'bench:stall': 5 })
}

type Variables = typeof BENCH_VARIABLES
type Name = keyof Variables
type Read<B extends Bench, N extends Name> = B extends keyof Variables[N]['defaults'] ? N : never
type Unset<B extends Bench, N extends Name> = B extends keyof Variables[N]['defaults']
  ? undefined extends Variables[N]['defaults'][B] ? undefined : never
  : never

/** The settings a bench reads: each variable's value, its default when unset. */
export type BenchSettings<B extends Bench> = { readonly [N in Name as Read<B, N>]: Static<Variables[N]['schema']> | Unset<B, N> }

/** Values never echoed back in an error: they may hold passwords. */
const SECRET = new Set<string>(['DATABASE_URL', 'REDIS_URL', 'BENCH_POOLER_URL'])

export class BenchSettingsError extends Error {
  readonly problems: string[]
  constructor (problems: string[]) {
    super(problems.join('\n'))
    this.name = 'BenchSettingsError'
    this.problems = problems
  }
}

/**
 * Parses `env` for `bench`. Empty strings count as unset. Throws a
 * BenchSettingsError with one line per bad or unknown variable.
 */
export function loadBenchSettings<B extends Bench> (bench: B, env: Record<string, string | undefined> = process.env): BenchSettings<B> {
  const settings: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [name, { schema, defaults }] of Object.entries(BENCH_VARIABLES) as Array<[string, Variable<TSchema, Partial<Record<Bench, unknown>>>]>) {
    if (!(bench in defaults)) continue
    const raw = env[name]
    if (raw === undefined || raw === '') {
      settings[name] = defaults[bench]
      continue
    }
    // As a number first for an integer, so that 1.5 is refused rather than cut to 1.
    const value = Value.Convert(schema[Kind] === 'Integer' ? Type.Number() : schema, raw)
    if (Value.Check(schema, value)) {
      settings[name] = value
    } else {
      const shown = SECRET.has(name) ? '(value hidden)' : JSON.stringify(raw)
      problems.push(`Invalid bench setting: ${name}=${shown}: expected ${schema.description ?? 'a valid value'}.`)
    }
  }
  for (const name of Object.keys(env)) {
    if (name.startsWith('BENCH_') && !(name in BENCH_VARIABLES)) {
      problems.push(`Unknown bench setting: ${name} (the benches' variables are listed in scripts/bench/settings.ts).`)
    }
  }
  if (problems.length > 0) throw new BenchSettingsError(problems)
  return settings as BenchSettings<B>
}

/** loadBenchSettings for a bench's start: a bad value ends the process with its line(s) on stderr, exit code 1. */
export function benchSettings<B extends Bench> (bench: B): BenchSettings<B> {
  try {
    return loadBenchSettings(bench)
  } catch (err) {
    if (!(err instanceof BenchSettingsError)) throw err
    process.stderr.write(`npm run ${bench}: ${err.message}\n`)
    process.exit(1)
  }
}

/** The scenarios BENCH_ONLY names. */
export const scenariosOf = (only: string): Set<Scenario> => new Set(only.split(',').map((s) => s.trim() as Scenario))
