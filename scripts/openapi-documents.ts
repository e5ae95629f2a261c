// Writes the OpenAPI documents the service serves (the seller API's and the
// operator API's) to a directory, for `npm run lint:api` and the client's type
// generation. The app is built on a throw-away embedded database: the documents
// depend only on the route schemas and the configuration's defaults.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/config.js'

/** Both documents, as the service serves them with its default settings. */
export async function openapiDocuments (): Promise<{ seller: unknown, operator: unknown }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'seller-api-openapi-'))
  try {
    const config = loadConfig({}, {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      INTERNAL_TOKEN: 'openapi-document-token-0123456789',
      PRESSURE_MAX_EVENT_LOOP_DELAY_MS: 0
    })
    const app = await buildApp({ config })
    try {
      return { seller: app.swagger(), operator: app.internalSwagger() }
    } finally {
      await app.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = resolve(process.argv[2] ?? 'openapi')
  mkdirSync(dir, { recursive: true })
  const { seller, operator } = await openapiDocuments()
  writeFileSync(join(dir, 'seller-api.json'), JSON.stringify(seller, null, 2) + '\n')
  writeFileSync(join(dir, 'operator-api.json'), JSON.stringify(operator, null, 2) + '\n')
  console.log(`wrote ${join(dir, 'seller-api.json')} and ${join(dir, 'operator-api.json')}`)
}
