// Process entry: read the configuration, build the app, listen, and close
// gracefully on SIGTERM / SIGINT (in-flight requests finish first). A start that
// cannot succeed (bad setting, database away, data directory taken) ends with
// one line saying why, not a stack trace.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { DataDirInUseError } from './db/data-dir-lock.js'
import { prepareEmbeddedInstallation } from './db/first-run.js'
import { ConfigError, loadConfig, type Config } from './plugins/config.js'

const unreachable = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED'])

/** The database without its password. */
function databaseName (config: Config): string {
  if (!config.DATABASE_URL) return `the embedded database in ${config.DATA_DIR}`
  const url = new URL(config.DATABASE_URL)
  return `the database ${url.pathname.slice(1) || '(default)'} at ${url.hostname}:${url.port || 5432}`
}

/** One line for failures an operator can fix; null for anything else (a bug: keep its stack). */
function explainStartFailure (err: unknown, config: Config): string | null {
  if (err instanceof DataDirInUseError) return `Start failed: ${err.message}`
  const errors = err instanceof AggregateError ? [err, ...err.errors] : [err]
  for (const e of errors as Array<{ code?: string, message?: string }>) {
    if (typeof e?.code !== 'string') continue
    const database = databaseName(config)
    if (unreachable.has(e.code)) return `Start failed: cannot reach ${database} (${e.code}); is Postgres running, and is DATABASE_URL right?`
    if (e.code === '3D000') return `Start failed: ${database} does not exist; create it, or fix DATABASE_URL.`
    if (e.code === '28P01' || e.code === '28000') return `Start failed: ${database} refused the credentials in DATABASE_URL (${e.code}).`
    if (/^(08|53|57P)/.test(e.code)) return `Start failed: ${database} is not accepting connections: ${e.message} (${e.code}).`
  }
  return null
}

function fail (line: string): never {
  process.stderr.write(line + '\n')
  process.exit(1)
}

async function main () {
  let config: Config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message)
    throw err
  }
  const firstRun = await prepareEmbeddedInstallation(config)
  let app
  try {
    app = await buildApp({ config: firstRun.config })
  } catch (err) {
    const reason = explainStartFailure(err, config)
    if (reason) fail(reason)
    throw err
  }
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'server closing after an error')
    else app.log.info({ signal }, 'server closing')
    await app.close()
  })
  await firstRun.seed(app)
  await app.listen({ port: config.PORT, host: config.HOST })
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
