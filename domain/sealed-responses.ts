// Idempotency records keep the finished response to replay it (plugins/idempotency.ts),
// and the response of a deliver, a take or a cancel carries the order's
// delivered values: its body is stored sealed under the values key
// (domain/stock-cipher.ts), bound to the record's key, in Redis and in the
// database alike (docs/security.md).
import { unknownKeyError, type StockCipher } from './stock-cipher.js'

/** A finished response as stored. With `keyId`, `body` is the base64 of nonce ‖ ciphertext ‖ tag under that key. */
export interface StoredResponse { statusCode: number, headers: Record<string, string>, body: string, keyId?: string }

const WHAT = 'A stored idempotent response'

/** The response as stored for record `key`: its body sealed under the values key (plain without one). */
export function sealResponse (cipher: StockCipher | null, key: string, response: StoredResponse): StoredResponse {
  if (cipher === null) return response
  const { keyId, box } = cipher.seal(response.body, key)
  return { ...response, body: box.toString('base64'), keyId }
}

/** The body of a stored response of record `key`; a StockKeyError when the keys at hand cannot open it. */
export function openResponseBody (cipher: StockCipher | null, key: string, response: StoredResponse): string {
  if (response.keyId === undefined) return response.body
  if (cipher === null) throw unknownKeyError(WHAT, response.keyId, null)
  return cipher.open(Buffer.from(response.body, 'base64'), response.keyId, key, WHAT)
}
