// The bench's tables: every measurement of a run, then each target
// (docs/performance.md, "Targets") with its value in every run, the median over
// the runs, and PASS or FAIL.
import type { Measure } from './load.js'
import { BACKLOG, SMALL_QUEUE, writeOps, type WriteOp } from './seed.js'
import { CLAIM_SHOPS, type ClaimsResult } from './claims.js'
import { FEED_PAGE, FEED_SHOPS, type FeedResult } from './feed.js'
import { STOCK_SHOPS, type StockResult } from './stock.js'
import { DUE_REMINDERS, RULE_SHOPS, type ChatRulesResult } from './chat-rules.js'

export interface Pair { baseline: Measure, service: Measure }

export interface RunResult {
  /** 1-minute load average: before the run, sampled every few seconds during it, after. */
  load: { before: number, during: number[], after: number }
  reads?: { orders: Pair, messages: Pair }
  writes?: Partial<Record<WriteOp, Pair>>
  backlog?: { big: Measure, small: Measure }
  tableSize?: { small: Measure, large: Measure }
  embedded?: Measure
  /** With `polls` long polls held on the service. */
  held?: { polls: number, orders: Pair, message: Pair }
  stock?: StockResult
  claims?: ClaimsResult
  feed?: FeedResult
  /** `baseline` is the side without rules. */
  chatRules?: ChatRulesResult
}

interface Target {
  row: string
  goal: string
  value: (run: RunResult) => number | undefined
  pass: (value: number) => boolean
  format: (value: number) => string
}

const ratio = (value: number) => `${value.toFixed(2)}×`
const at = (v: number) => `${v.toFixed(0)} req/s`

export const targets: Target[] = [
  { row: 'reads: GET /v1/orders?status=paid&limit=20', goal: '≥ 1.2× baseline', value: (r) => r.reads && r.reads.orders.service.rps / r.reads.orders.baseline.rps, pass: (v) => v >= 1.2, format: ratio },
  { row: 'reads: GET /v1/orders/{id}/messages?cursor=…', goal: '≥ 1.2× baseline', value: (r) => r.reads && r.reads.messages.service.rps / r.reads.messages.baseline.rps, pass: (v) => v >= 1.2, format: ratio },
  ...writeOps.map((op): Target => ({
    row: `writes: ${op === 'message' ? 'POST /v1/orders/{id}/messages' : `POST /v1/orders/{id}/${op}`} + Idempotency-Key`,
    goal: '≥ 0.9× baseline',
    value: (r) => { const pair = r.writes?.[op]; return pair && pair.service.rps / pair.baseline.rps },
    pass: (v) => v >= 0.9,
    format: ratio
  })),
  { row: `backlog: orders list, shop with ${BACKLOG} paid vs ${SMALL_QUEUE}, p50`, goal: '≤ 1.5×', value: (r) => r.backlog && r.backlog.big.p50 / r.backlog.small.p50, pass: (v) => v <= 1.5, format: ratio },
  { row: `backlog: orders list, shop with ${BACKLOG} paid vs ${SMALL_QUEUE}, p99`, goal: '≤ 1.5×', value: (r) => r.backlog && r.backlog.big.p99 / r.backlog.small.p99, pass: (v) => v <= 1.5, format: ratio },
  { row: 'table size: orders list at 1 M orders vs 10 k, p50', goal: '≤ 1.3×', value: (r) => r.tableSize && r.tableSize.large.p50 / r.tableSize.small.p50, pass: (v) => v <= 1.3, format: ratio },
  { row: 'table size: orders list at 1 M orders vs 10 k, p99', goal: '≤ 1.3×', value: (r) => r.tableSize && r.tableSize.large.p99 / r.tableSize.small.p99, pass: (v) => v <= 1.3, format: ratio },
  { row: 'embedded (PGlite): orders list, demo shop with 10 000 paid', goal: '≥ 300 req/s', value: (r) => r.embedded?.rps, pass: (v) => v >= 300, format: at },
  { row: '5 000 held long polls: GET /v1/orders?status=paid&limit=20', goal: '≥ 1.2× baseline', value: (r) => r.held && r.held.orders.service.rps / r.held.orders.baseline.rps, pass: (v) => v >= 1.2, format: ratio },
  { row: '5 000 held long polls: POST …/messages + Idempotency-Key', goal: '≥ 0.9× baseline', value: (r) => r.held && r.held.message.service.rps / r.held.message.baseline.rps, pass: (v) => v >= 0.9, format: ratio },
  { row: `stock: purchase with instant delivery, ${STOCK_SHOPS} shops`, goal: '≥ 0.9× stock baseline', value: (r) => r.stock && r.stock.purchase.service.rps / r.stock.purchase.baseline.rps, pass: (v) => v >= 0.9, format: ratio },
  { row: 'stock: all purchases on one product (serialised by design)', goal: 'reported', value: (r) => r.stock && r.stock.hot.service.rps / r.stock.hot.baseline.rps, pass: () => true, format: ratio },
  { row: 'stock: take p99 at 1 M available vs ≤ 10', goal: '≤ 1.3×', value: (r) => r.stock && r.stock.take.p99AtMillion / r.stock.take.p99AtTen, pass: (v) => v <= 1.3, format: ratio },
  { row: `claim replaced from stock, ${CLAIM_SHOPS} shops`, goal: '≥ 0.9× claims baseline', value: (r) => r.claims && r.claims.replace.service.rps / r.claims.replace.baseline.rps, pass: (v) => v >= 0.9, format: ratio },
  { row: `feed page: GET /v1/events, ${FEED_PAGE} sealed orders, ${FEED_SHOPS} shops`, goal: '≥ 1.2× stock baseline', value: (r) => r.feed && r.feed.page.service.rps / r.feed.page.baseline.rps, pass: (v) => v >= 1.2, format: ratio },
  { row: 'feed page: the same, values stored plain (as before sealing)', goal: 'reported', value: (r) => r.feed && r.feed.clearPage.service.rps / r.feed.clearPage.baseline.rps, pass: () => true, format: ratio },
  { row: `chat rules: stock purchase, 5 rules vs none, ${RULE_SHOPS} shops`, goal: '≥ 0.8× without rules', value: (r) => r.chatRules && r.chatRules.purchase.service.rps / r.chatRules.purchase.baseline.rps, pass: (v) => v >= 0.8, format: ratio },
  { row: 'chat rules: the floor (the same rows, written bare) vs none', goal: 'reported', value: (r) => r.chatRules && r.chatRules.floor.service.rps / r.chatRules.floor.baseline.rps, pass: () => true, format: ratio },
  { row: 'chat rules: buyer message p99, 100 rules vs none', goal: '≤ 1.5× without rules', value: (r) => r.chatRules && r.chatRules.message.service.p99 / r.chatRules.message.baseline.p99, pass: (v) => v <= 1.5, format: ratio },
  { row: `chat rules: ${DUE_REMINDERS} reminders due at once, 2 instances (each once)`, goal: '≤ 60 s', value: (r) => r.chatRules && (r.chatRules.reminders.once ? r.chatRules.reminders.seconds : 1e9), pass: (v) => v <= 60, format: (v) => v < 1e9 ? `${v.toFixed(1)} s` : 'not once' },
  { row: 'stock: upload of 10 000 codes', goal: '< 2 000 ms', value: (r) => r.stock?.uploadMs, pass: (v) => v < 2000, format: (v) => `${v.toFixed(0)} ms` }
]

export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const fmt = (n: number, digits = 0) => Number.isFinite(n) ? n.toFixed(digits) : '–'
const loadText = (load: RunResult['load']) => {
  const during = load.during.length > 0 ? `${fmt(Math.min(...load.during), 2)}–${fmt(Math.max(...load.during), 2)}` : '–'
  return `before ${fmt(load.before, 2)}, during ${during}, after ${fmt(load.after, 2)}`
}

function measureRow (name: string, m: Measure): string {
  return `| ${name.padEnd(30)} | ${fmt(m.rps).padStart(6)} | ${fmt(m.p50, 1).padStart(5)} | ${fmt(m.p99, 1).padStart(5)} | ` +
    `${fmt(m.nodeMs, 3).padStart(5)} | ${fmt(m.postgresMs, 3).padStart(8)} | ${fmt(m.redisMs, 3).padStart(5)} | ${fmt(m.redisCalls, 1).padStart(10)} |`
}

/** All measurements of one run. */
export function runTable (index: number, run: RunResult): string {
  const lines = [
    '',
    `Run ${index} — 1-minute load average ${loadText(run.load)}`,
    '| measurement                    |  req/s |   p50 |   p99 |  node | postgres | redis | redis cmds |',
    '|--------------------------------|-------:|------:|------:|------:|---------:|------:|-----------:|'
  ]
  const pair = (name: string, p: Pair) => { lines.push(measureRow(`${name}, baseline`, p.baseline), measureRow(`${name}, service`, p.service)) }
  if (run.reads) { pair('orders list', run.reads.orders); pair('messages poll', run.reads.messages) }
  for (const op of writeOps) { const p = run.writes?.[op]; if (p) pair(op, p) }
  if (run.backlog) { lines.push(measureRow(`list, ${BACKLOG} paid`, run.backlog.big), measureRow(`list, ${SMALL_QUEUE} paid`, run.backlog.small)) }
  if (run.tableSize) { lines.push(measureRow('list, 1 M orders table', run.tableSize.large), measureRow('list, 10 k orders table', run.tableSize.small)) }
  if (run.embedded) lines.push(measureRow('embedded list (PGlite)', run.embedded))
  if (run.held) { pair(`orders list, ${run.held.polls} polls`, run.held.orders); pair(`message, ${run.held.polls} polls`, run.held.message) }
  if (run.stock) {
    pair('stock purchase', run.stock.purchase)
    pair('stock, one product', run.stock.hot)
    const t = run.stock.take
    lines.push(`(stock take p50 / p99 ms: ${fmt(t.medianAtMillion, 2)} / ${fmt(t.p99AtMillion, 2)} at 1 M, ${fmt(t.medianAtTen, 2)} / ${fmt(t.p99AtTen, 2)} at ≤ 10; ` +
      `upload of 10 000 codes ${fmt(run.stock.uploadMs)} ms)`)
  }
  if (run.claims) pair('claim replaced from stock', run.claims.replace)
  if (run.feed) { pair(`feed page, ${FEED_PAGE} sealed`, run.feed.page); pair(`feed page, ${FEED_PAGE} plain`, run.feed.clearPage) }
  if (run.chatRules) {
    pair('purchase, no rules / 5 rules', run.chatRules.purchase)
    pair('purchase, no rules / the floor', run.chatRules.floor)
    pair('buyer message, no rules / 100 rules', run.chatRules.message)
    const r = run.chatRules.reminders
    lines.push(`(chat rules: ${r.reminded} reminders in ${fmt(r.seconds, 1)} s on 2 instances, each once: ${r.once})`)
  }
  lines.push('(latency in ms; CPU in ms per request of the server process, its Postgres backends, and the whole Redis server;',
    ' Redis commands per request, those inside scripts included)')
  return lines.join('\n')
}

/** The verdict on one target over the runs: undefined when no run measured it. */
function verdictOf (target: Target, runs: RunResult[]): { values: Array<number | undefined>, median?: number, pass?: boolean } {
  const values = runs.map(target.value)
  const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v))
  if (known.length === 0) return { values }
  const mid = median(known)
  return { values, median: mid, pass: target.pass(mid) }
}

/** The rows of the targets that fail on their median. */
export const failedTargets = (runs: RunResult[]): string[] =>
  targets.filter((target) => verdictOf(target, runs).pass === false).map((target) => target.row)

/** Every target: its value in each run, the median, PASS / FAIL on the median. */
export function targetTable (runs: RunResult[]): string {
  const header = runs.map((_, i) => ` run ${i + 1} `.padStart(10)).join('|')
  const lines = [
    '',
    `Targets, ${runs.length} run(s); ratios within each run; the verdict is on the median`,
    `| target${' '.repeat(56)} | goal                  |${header}|     median | verdict |`,
    `|${'-'.repeat(64)}|-----------------------|${runs.map(() => '----------:').join('|')}|-----------:|---------|`
  ]
  for (const target of targets) {
    const { values, median: mid, pass } = verdictOf(target, runs)
    if (values.every((v) => v === undefined)) continue
    const cells = values.map((v) => (v === undefined ? 'skipped' : target.format(v)).padStart(10)).join(' |')
    const verdict = pass === undefined ? 'skipped' : pass ? 'PASS' : 'FAIL'
    lines.push(`| ${target.row.padEnd(62)} | ${target.goal.padEnd(21)} |${cells} | ${(mid === undefined ? '–' : target.format(mid)).padStart(10)} | ${verdict.padEnd(7)} |`)
  }
  lines.push('Load average (1 min) per run: ' + runs.map((r, i) => `run ${i + 1}: ${loadText(r.load)}`).join('; '))
  return lines.join('\n')
}
