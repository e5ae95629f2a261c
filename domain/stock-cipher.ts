// Values are secrets (docs/security.md, docs/stock.md): AES-256-GCM with a fresh
// 12-byte nonce per item under VALUES_ENCRYPTION_KEY, bound to the item's
// product; a keyed hash (HMAC-SHA-256 under a key derived from it by HKDF) finds
// duplicates without storing anything readable. The same key seals the values
// delivered to an order, bound to the order (domain/delivered-values.ts).
// VALUES_ENCRYPTION_KEY_PREVIOUS still decrypts (and hashes) what the key before it wrote.
import {
  createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomFillSync, type KeyObject
} from 'node:crypto'

const NONCE_BYTES = 12
const TAG_BYTES = 16

/**
 * Nonces come from the CSPRNG 256 at a time (one call instead of 256: a call cost
 * about as much as the encryption of a response, docs/performance.md), each slice
 * copied out and used once, as Node's randomUUID does with its entropy.
 */
const nonces = { pool: Buffer.alloc(NONCE_BYTES * 256), next: NONCE_BYTES * 256 }
function freshNonce (): Buffer {
  if (nonces.next === nonces.pool.length) {
    randomFillSync(nonces.pool)
    nonces.next = 0
  }
  const nonce = Buffer.from(nonces.pool.subarray(nonces.next, nonces.next + NONCE_BYTES))
  nonces.next += NONCE_BYTES
  return nonce
}

/** The variable names, for the messages that tell an operator what to set. */
export const KEY_VARIABLE = 'VALUES_ENCRYPTION_KEY'
export const PREVIOUS_KEY_VARIABLE = 'VALUES_ENCRYPTION_KEY_PREVIOUS'
/** The names they had while they covered stock only: still read, with a deprecation warning. */
export const DEPRECATED_KEY_VARIABLE = 'STOCK_ENCRYPTION_KEY'
export const DEPRECATED_PREVIOUS_KEY_VARIABLE = 'STOCK_ENCRYPTION_KEY_PREVIOUS'

/** A value the service cannot read with the keys it has: the key was changed without keeping the old one. */
export class StockKeyError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'StockKeyError'
  }
}

export interface EncryptedValue { ciphertext: Buffer, nonce: Buffer, keyId: string }

/** `cipherKey`: the secret as a KeyObject, made once rather than from the bytes at every call. */
interface Key { id: string, cipherKey: KeyObject, hashKey: Buffer }

const derive = (secret: Buffer, info: string,
  length: number) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, length))

/** Parses a key variable: base64 of exactly 32 bytes. */
export function parseKey (text: string, variable: string): Buffer {
  const secret = Buffer.from(text, 'base64')
  if (secret.length !== 32 || secret.toString('base64') !== text) {
    throw new StockKeyError(`${variable} must be the base64 of 32 bytes (e.g. \`openssl rand -base64 32\`).`)
  }
  return secret
}

function key (secret: Buffer): Key {
  // The id names the key without revealing it: a derived value, never the key's own bytes.
  return {
    id: derive(secret, 'seller-api stock key id', 8).toString('hex'),
    cipherKey: createSecretKey(secret),
    hashKey: derive(secret, 'seller-api stock duplicate hash', 32)
  }
}

export class StockCipher {
  readonly current: Key
  readonly previous: Key | null

  constructor (current: Buffer, previous: Buffer | null = null) {
    this.current = key(current)
    this.previous = previous ? key(previous) : null
  }

  get keyId (): string { return this.current.id }

  /** Whether items under `keyId` are readable. */
  knows (keyId: string): boolean {
    return keyId === this.current.id || keyId === this.previous?.id
  }

  /** Encrypts `value` for an item of `productId` (the product is authenticated with it). */
  encrypt (value: string, productId: string): EncryptedValue {
    const nonce = freshNonce()
    const cipher = createCipheriv('aes-256-gcm', this.current.cipherKey, nonce)
    cipher.setAAD(Buffer.from(productId))
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return { ciphertext, nonce, keyId: this.current.id }
  }

  /**
   * The value of an item (`what` names it in the error: a stock item, an order's values);
   * a StockKeyError when no key of ours wrote it or it does not authenticate (never garbage).
   */
  decrypt (item: EncryptedValue, productId: string, what = 'A stock item'): string {
    const secret = item.keyId === this.current.id
      ? this.current.cipherKey
      : item.keyId === this.previous?.id ? this.previous.cipherKey : null
    if (!secret) throw unknownKeyError(what, item.keyId, this.current.id)
    try {
      const decipher = createDecipheriv('aes-256-gcm', secret, item.nonce)
      decipher.setAAD(Buffer.from(productId))
      decipher.setAuthTag(item.ciphertext.subarray(item.ciphertext.length - TAG_BYTES))
      return Buffer.concat([decipher.update(item.ciphertext.subarray(0, item.ciphertext.length - TAG_BYTES)),
        decipher.final()]).toString('utf8')
    } catch {
      throw new StockKeyError(`${what} under key ${item.keyId} does not authenticate: it was altered, or ` +
        `${KEY_VARIABLE} is not the key it was written with.`)
    }
  }

  /** `text` encrypted under the current key and bound to `context`, as one box: nonce ‖ ciphertext ‖ tag. */
  seal (text: string, context: string): { keyId: string, box: Buffer } {
    const { ciphertext, nonce, keyId } = this.encrypt(text, context)
    return { keyId, box: Buffer.concat([nonce, ciphertext]) }
  }

  /** The text of a box `seal` made under `keyId` for `context`; a StockKeyError as decrypt's. */
  open (box: Buffer, keyId: string, context: string, what: string): string {
    if (box.length < NONCE_BYTES + TAG_BYTES) {
      throw new StockKeyError(`${what} under key ${keyId} is cut short: it was altered.`)
    }
    const nonce = box.subarray(0, NONCE_BYTES)
    return this.decrypt({ nonce, ciphertext: box.subarray(NONCE_BYTES), keyId }, context, what)
  }

  /** The duplicate-check hash of `value` under the current key. */
  hash (value: string): Buffer {
    return createHmac('sha256', this.current.hashKey).update(value, 'utf8').digest()
  }

  /** The hash under the previous key, for duplicates among items not yet re-encrypted; null without one. */
  previousHash (value: string): Buffer | null {
    return this.previous ? createHmac('sha256', this.previous.hashKey).update(value, 'utf8').digest() : null
  }
}

/** Something written under `keyId`, read with no key of that id (or with none configured). */
export function unknownKeyError (what: string, keyId: string, currentKeyId: string | null): StockKeyError {
  const current = currentKeyId === null
    ? `${KEY_VARIABLE} is not set`
    : `neither ${KEY_VARIABLE} (${currentKeyId}) nor ${PREVIOUS_KEY_VARIABLE} is that key`
  const toSet = currentKeyId === null ? KEY_VARIABLE : PREVIOUS_KEY_VARIABLE
  return new StockKeyError(`${what} was encrypted with key ${keyId}, but ${current}; set ${toSet} to the key ` +
    'it was written with.')
}

/** What a listing shows of a value: its first 4 characters, or nothing for values of 8 characters or fewer. */
export function previewOf (value: string): string {
  const characters = [...value]
  return characters.length <= 8 ? '' : characters.slice(0, 4).join('')
}
