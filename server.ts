// Process entry: read the configuration, build the app, listen, and close
// gracefully on SIGTERM / SIGINT (in-flight requests finish first).
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { prepareEmbeddedInstallation } from './db/first-run.js'
import { loadConfig } from './plugins/config.js'

async function main () {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    console.error((err as Error).message)
    process.exit(1)
  }
  const firstRun = await prepareEmbeddedInstallation(config)
  const app = await buildApp({ config: firstRun.config })
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
