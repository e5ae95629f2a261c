// Process entry: read the configuration, build the app, listen, and on SIGTERM /
// SIGINT drain (docs/deploying-rolling.md) and close gracefully (in-flight
// requests finish first). A start that
// cannot succeed (bad setting, database away, data directory taken) ends with
// one line saying why, not a stack trace.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { prepareEmbeddedInstallation } from './services/embedded/first-run.js'
import { explainOpenFailure } from './db/core/open-failure.js'
import { ConfigError, loadConfig, type Config } from './plugins/config.js'

/**
 * How long the close after the drain may take (in-flight requests, webhook attempts) before the process exits anyway.
 */
const CLOSE_TIMEOUT_MS = 10_000

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
    const reason = explainOpenFailure(err, { url: config.DATABASE_URL, dataDir: config.DATA_DIR })
    if (reason) fail(`Start failed: ${reason}`)
    throw err
  }
  // A signal first drains (plugins/drain.ts: not ready, keep-alive clients told to
  // move, held polls answered) for SHUTDOWN_DRAIN_MS, then closes; a second signal
  // ends the process at once.
  const drainMs = firstRun.config.SHUTDOWN_DRAIN_MS
  closeWithGrace({
    delay: drainMs + CLOSE_TIMEOUT_MS,
    onSecondSignal: (signal) => app.log.warn({ signal }, 'second signal: exiting at once'),
    onTimeout: (delay) => app.log.error({ delay }, 'the close took too long: exiting')
  }, async ({ signal, err }) => {
    if (err) {
      app.log.error({ err }, 'server closing after an error')
    } else {
      if (signal && drainMs > 0 && app.server.listening) await app.drain.start()
      app.log.info({ signal }, 'server closing')
    }
    await app.close()
  })
  await firstRun.seed(app)
  try {
    await app.listen({ port: config.PORT, host: config.HOST })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err
    await app.close()
    fail(`Start failed: cannot listen on ${config.HOST}:${config.PORT} (${code}); choose another PORT or HOST.`)
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
