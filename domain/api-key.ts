// API key format and hashing: `service_sk_` + 40 characters of [A-Za-z0-9] from a
// CSPRNG. Only the SHA-256 of the whole key is ever stored.
import { createHash, randomInt } from 'node:crypto'

export const KEY_PREFIX = 'service_sk_'
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const wellFormed = /^service_sk_[A-Za-z0-9]{40}$/

export function generateApiKeySecret (): string {
  let body = ''
  // randomInt draws without modulo bias.
  for (let i = 0; i < 40; i++) body += alphabet[randomInt(alphabet.length)]
  return KEY_PREFIX + body
}

export const isWellFormedApiKey = (key: string) => wellFormed.test(key)

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex')

/** What we show of a key after creation: the first 4 characters after the prefix. */
export const displayPrefix = (key: string) => key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 4)
