// Process entry: read the configuration, build the app, listen, and close
// gracefully on SIGTERM / SIGINT (in-flight requests finish first). A start that
// cannot succeed (bad setting, database away, data directory taken) ends with
// one line saying why, not a stack trace.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { prepareEmbeddedInstallation } from './db/first-run.js'
import { explainOpenFailure } from './db/open-failure.js'
import { ConfigError, loadConfig, type Config } from './plugins/config.js'

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
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'server closing after an error')
    else app.log.info({ signal }, 'server closing')
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
