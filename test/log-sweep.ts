// The log sweep (docs/security.md, What is logged): every app a test builds with
// test/helper.ts logs at trace into a file of this run's log directory, and every
// secret the service hands a test (API keys, webhook secrets, in any response
// body) is recorded there too, with the operator token. After the run, tap's
// `after` step (test/teardown.ts) searches every log line for every recorded
// secret and for anything secret-shaped, and fails the run if one is found.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testRunId } from './databases.js'

/** This run's directory of app logs and recorded secrets (outside the work tree). */
export const runLogDir = (runId = testRunId()) => join(tmpdir(), `seller-api-test-logs-${runId}`)
const SECRETS_FILE = 'secrets.txt'

/** What the service's secrets look like (domain/api-key.ts, domain/webhook-signing.ts). */
const SECRET_SHAPES = /service_sk_[A-Za-z0-9]{40}|whsec_[A-Za-z0-9+/=]{20,}/g

/** Records the secrets in `text` (a response body) and any `known` ones for the sweep. */
export function recordSecrets (text: string, known: string[] = []) {
  const found = [...new Set([...(text.match(SECRET_SHAPES) ?? []), ...known])]
  if (found.length === 0) return
  mkdirSync(runLogDir(), { recursive: true })
  appendFileSync(join(runLogDir(), SECRETS_FILE), found.map((s) => s + '\n').join(''))
}

/** The log file of this test process. */
export function processLogFile (): string {
  mkdirSync(runLogDir(), { recursive: true })
  return join(runLogDir(), `app-${process.pid}.log`)
}

export interface SweepFinding { file: string, line: number, secret: string }

/** Searches every log file of the run for the recorded secrets and secret-shaped strings. */
export function sweepLogs (dir = runLogDir()): { files: number, lines: number, secrets: number, findings: SweepFinding[] } {
  if (!existsSync(dir)) return { files: 0, lines: 0, secrets: 0, findings: [] }
  const secretsPath = join(dir, SECRETS_FILE)
  const secrets = existsSync(secretsPath) ? [...new Set(readFileSync(secretsPath, 'utf8').split('\n').filter(Boolean))] : []
  // A secret's body without its prefix counts too.
  const needles = [...secrets, ...secrets.map((s) => s.replace(/^(service_sk_|whsec_)/, '')).filter((s) => s.length >= 16)]
  const findings: SweepFinding[] = []
  let files = 0
  let lines = 0
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    files++
    readFileSync(join(dir, name), 'utf8').split('\n').forEach((text, index) => {
      lines++
      const hit = needles.find((needle) => text.includes(needle)) ?? text.match(SECRET_SHAPES)?.[0]
      if (hit) findings.push({ file: name, line: index + 1, secret: hit })
    })
  }
  return { files, lines, secrets: secrets.length, findings }
}

/** Ends the sweep: the directory goes when nothing was found, and stays for inspection otherwise. */
export function finishSweep (dir = runLogDir()): boolean {
  const { files, lines, secrets, findings } = sweepLogs(dir)
  if (findings.length === 0) {
    rmSync(dir, { recursive: true, force: true })
    process.stdout.write(`# log sweep: ${lines} lines in ${files} app log files, none carries any of ${secrets} secrets\n`)
    return true
  }
  process.stderr.write(`log sweep: ${findings.length} log lines carry a secret (logs kept in ${dir}):\n`)
  for (const f of findings.slice(0, 20)) process.stderr.write(`  ${f.file}:${f.line}: ${f.secret.slice(0, 14)}…\n`)
  return false
}
