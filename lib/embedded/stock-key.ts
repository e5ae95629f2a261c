// Which key encrypts values, in stock and delivered (docs/security.md):
// VALUES_ENCRYPTION_KEY when set (or its deprecated name STOCK_ENCRYPTION_KEY);
// on the embedded default without it, one generated on first use and kept
// in DATA_DIR (like the internal token, services/embedded/first-run.ts); with DATABASE_URL and
// no key (a start refused unless VALUES_IN_CLEAR=true), none: the stock calls that
// store or reveal a value answer 503, and delivered values are stored plain (the
// service warns at start).
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  DEPRECATED_KEY_VARIABLE, DEPRECATED_PREVIOUS_KEY_VARIABLE, KEY_VARIABLE, parseKey, PREVIOUS_KEY_VARIABLE, StockCipher
} from '../../domain/stock-cipher.js'

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
interface KeyConfig {
  DATABASE_URL?: string
  DATA_DIR: string
  VALUES_ENCRYPTION_KEY?: string
  VALUES_ENCRYPTION_KEY_PREVIOUS?: string
  STOCK_ENCRYPTION_KEY?: string
  STOCK_ENCRYPTION_KEY_PREVIOUS?: string
}

/** The deprecated variable names the configuration still uses, for the warning at start. */
export function deprecatedKeyVariables (config: KeyConfig): string[] {
  const used: string[] = []
  if (config.STOCK_ENCRYPTION_KEY && !config.VALUES_ENCRYPTION_KEY) {
    used.push(`${DEPRECATED_KEY_VARIABLE} (now ${KEY_VARIABLE})`)
  }
  if (config.STOCK_ENCRYPTION_KEY_PREVIOUS && !config.VALUES_ENCRYPTION_KEY_PREVIOUS) {
    used.push(`${DEPRECATED_PREVIOUS_KEY_VARIABLE} (now ${PREVIOUS_KEY_VARIABLE})`)
  }
  return used
}

/** The values cipher the configuration gives, or null (Postgres without a key). */
export function stockCipherFor (config: KeyConfig): StockCipher | null {
  const previousText = config.VALUES_ENCRYPTION_KEY_PREVIOUS ?? config.STOCK_ENCRYPTION_KEY_PREVIOUS
  const currentText = config.VALUES_ENCRYPTION_KEY ?? config.STOCK_ENCRYPTION_KEY
  const previous = previousText ? parseKey(previousText, PREVIOUS_KEY_VARIABLE) : null
  if (currentText) return new StockCipher(parseKey(currentText, KEY_VARIABLE), previous)
  if (config.DATABASE_URL) return null
  return new StockCipher(loadOrCreateKey(config.DATA_DIR), previous)
}
