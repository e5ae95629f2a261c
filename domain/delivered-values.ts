// The values delivered to an order are secrets for their whole life
// (docs/security.md): they are stored sealed, the JSON list encrypted as one
// box under the values key (domain/stock-cipher.ts, AES-256-GCM, a fresh nonce)
// with the order's id as associated data, so a box copied onto another order
// does not open. What is stored in `orders.delivered_values` (and, through the
// order's representation, in every event that carries the order) is either
// that box with its key id, or a plain list: `[]` before delivery, or the
// values of a row written before this encryption or by a server database
// without a key. A box is opened only when a response, a feed page or a
// webhook body is built.
import { joinDeliveredValues } from './order-transitions.js'
import { StockKeyError, unknownKeyError, type StockCipher } from './stock-cipher.js'

/** The values sealed: the key id and base64 of nonce ‖ ciphertext ‖ tag of their JSON list. */
export interface SealedValues { keyId: string, sealed: string }

/** What `orders.delivered_values` holds: a plain list, or the sealed box. */
export type StoredValues = string[] | SealedValues

const WHAT = 'The values delivered to an order'

/**
 * How `values`, delivered to order `orderId`, are stored: sealed under the
 * current key; a plain list when there is nothing to hide (`[]`) or no key
 * (a server database without VALUES_ENCRYPTION_KEY, docs/security.md).
 */
export function sealValues (cipher: StockCipher | null, orderId: string, values: readonly string[]): StoredValues {
  if (values.length === 0 || cipher === null) return [...values]
  const { keyId, box } = cipher.seal(JSON.stringify(values), orderId)
  return { keyId, sealed: box.toString('base64') }
}

export const isSealed = (stored: StoredValues): stored is SealedValues => !Array.isArray(stored)

/** The values of order `orderId` as stored; a StockKeyError when the keys at hand cannot open them (never garbage). */
export function openValues (cipher: StockCipher | null, orderId: string, stored: StoredValues): string[] {
  if (!isSealed(stored)) return stored
  if (cipher === null) throw unknownKeyError(WHAT, stored.keyId, null)
  const values: unknown = JSON.parse(cipher.open(Buffer.from(stored.sealed, 'base64'), stored.keyId, orderId, WHAT))
  if (!Array.isArray(values)) throw new StockKeyError(`${WHAT} under key ${stored.keyId} are not a list.`)
  return values as string[]
}

/** An order's representation, or one with its values still as stored. */
interface OrderShape { id: string, deliveredValue: string | null, deliveredValues: StoredValues }

/**
 * The order with its values opened: the same object when they are plain, else a
 * copy whose `deliveredValues` and `deliveredValue` are filled in place (the
 * keys keep their position, so the order serializes as it always did).
 */
export function revealOrder<T extends OrderShape> (
  order: T, cipher: StockCipher | null
): Omit<T, 'deliveredValues'> & { deliveredValues: string[] } {
  const stored = order.deliveredValues
  if (!isSealed(stored)) return order as Omit<T, 'deliveredValues'> & { deliveredValues: string[] }
  const values = openValues(cipher, order.id, stored)
  return { ...order, deliveredValue: joinDeliveredValues(values), deliveredValues: values }
}

/**
 * An event's data with the order it carries (if any) revealed: the same object
 * when there is nothing sealed, else a copy with the order's values opened.
 */
export function revealEventData (data: unknown, cipher: StockCipher | null): unknown {
  if (data === null || typeof data !== 'object') return data
  const order = (data as { order?: OrderShape }).order
  if (order === null || typeof order !== 'object' || !order.deliveredValues) return data
  if (!isSealed(order.deliveredValues)) return data
  return { ...data, order: revealOrder(order, cipher) }
}
