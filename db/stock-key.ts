// Which key encrypts stock values (docs/stock.md): STOCK_ENCRYPTION_KEY when
// set; on the embedded default without it, one generated on first use and kept
// in DATA_DIR (like the internal token, db/first-run.ts); with DATABASE_URL and
// no key, none: the calls that store or reveal a value answer 503.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { KEY_VARIABLE, parseKey, PREVIOUS_KEY_VARIABLE, StockCipher } from '../domain/stock-cipher.js'

export const STOCK_KEY_FILE = 'stock-encryption-key'

function loadOrCreateKey (dataDir: string): Buffer {
  // An in-memory database keeps nothing, so neither does its key.
  if (dataDir.startsWith('memory://')) return randomBytes(32)
  const file = join(dataDir, STOCK_KEY_FILE)
  if (existsSync(file)) return parseKey(readFileSync(file, 'utf8').trim(), file)
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32)
  writeFileSync(file, secret.toString('base64') + '\n', { mode: 0o600, flag: 'wx' })
  return secret
}

/** What the key choice reads of the service's configuration (plugins/config.ts). */
interface KeyConfig { DATABASE_URL?: string, DATA_DIR: string, STOCK_ENCRYPTION_KEY?: string, STOCK_ENCRYPTION_KEY_PREVIOUS?: string }

/** The stock cipher the configuration gives, or null (Postgres without a key). */
export function stockCipherFor (config: KeyConfig): StockCipher | null {
  const previous = config.STOCK_ENCRYPTION_KEY_PREVIOUS ? parseKey(config.STOCK_ENCRYPTION_KEY_PREVIOUS, PREVIOUS_KEY_VARIABLE) : null
  if (config.STOCK_ENCRYPTION_KEY) return new StockCipher(parseKey(config.STOCK_ENCRYPTION_KEY, KEY_VARIABLE), previous)
  if (config.DATABASE_URL) return null
  return new StockCipher(loadOrCreateKey(config.DATA_DIR), previous)
}
