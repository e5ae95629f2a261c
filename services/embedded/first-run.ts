// First start on the embedded default: generate and keep an internal token in
// DATA_DIR, and on an empty database seed a demo shop (a rate, an external
// product, an API key), printing the key, a seller portal link and the token once.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { createPortalLink } from '../../db/portal/links.js'
import { shops } from '../../db/tables.js'
import { LINK_TTL } from '../../domain/portal-token.js'
import { seedDemoChatRules, seedDemoShop } from './demo.js'

/** What the first start reads of the service's configuration (plugins/config.ts). */
export interface InstallationSettings {
  DATABASE_URL?: string
  DATA_DIR: string
  INTERNAL_TOKEN?: string
  PUBLIC_BASE_URL?: string
}

export interface FirstRun<C extends InstallationSettings> {
  /** The configuration to start with: the generated internal token filled in. */
  config: C
  seed: (app: FastifyInstance) => Promise<void>
}

function loadOrCreateToken (dataDir: string): { token: string, created: boolean } {
  const file = join(dataDir, 'internal-token')
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), created: false }
  mkdirSync(dataDir, { recursive: true })
  const token = randomBytes(24).toString('base64url')
  writeFileSync(file, token + '\n', { mode: 0o600 })
  return { token, created: true }
}

export async function prepareEmbeddedInstallation<C extends InstallationSettings> (config: C): Promise<FirstRun<C>> {
  const embedded = !config.DATABASE_URL
  if (!embedded) return { config, seed: async () => {} }
  const generated = config.INTERNAL_TOKEN ? null : loadOrCreateToken(config.DATA_DIR)
  const effective = generated ? { ...config, INTERNAL_TOKEN: generated.token } : config
  return {
    config: effective,
    async seed (app) {
      const [anyShop] = await app.db.select({ id: shops.id }).from(shops).limit(1)
      if (anyShop) return
      const demo = await seedDemoShop(app.db)
      await seedDemoChatRules(app.db, demo.shopId)
      // The longest a link may live: a newcomer may open it days later.
      const portal = await createPortalLink(app.db, demo.shopId,
        { ttlSeconds: LINK_TTL.max, readOnly: false, locale: 'ru' })
      // One block for a human on stderr, never in the JSON log stream on stdout:
      // logs never carry secrets, and this is shown once.
      const lines = [
        '',
        'First start on the embedded database: demo data created.',
        `  demo shop:    ${demo.shopId}`,
        `  demo API key: ${demo.secret}   (shown only now)`,
        `  seller portal: ${config.PUBLIC_BASE_URL}/portal/enter?token=${portal.token}   (opens once, within 7 days)`,
        generated
          ? `  internal token (kept in ${join(config.DATA_DIR, 'internal-token')}): ${generated.token}`
          : '  internal token: the INTERNAL_TOKEN you set',
        `  try: curl -H "Authorization: Bearer ${demo.secret}" ${config.PUBLIC_BASE_URL}/v1/products`,
        ''
      ]
      process.stderr.write(lines.join('\n') + '\n')
    }
  }
}
