// Exact money arithmetic. Amounts travel as JSON numbers with at most two
// decimals and are stored as Postgres numeric; all arithmetic here is on integer
// minor units (kopecks) as BigInt, so nothing accumulates floating-point error.

/** Scale of currency rates: rubles per unit with up to 6 decimals. */
const RATE_SCALE = 6

/** Parses a decimal (number or numeric string) into an integer of `scale` decimals. */
export function toScaled (value: number | string, scale: number): bigint {
  const text = typeof value === 'number' ? numberToPlain(value) : value.trim()
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text)
  if (!match) throw new RangeError(`not a decimal: ${text}`)
  const [, sign, whole, fraction = ''] = match
  if (fraction.length > scale && /[1-9]/.test(fraction.slice(scale))) {
    throw new RangeError(`${text} has more than ${scale} decimal places`)
  }
  const digits = BigInt(whole + fraction.slice(0, scale).padEnd(scale, '0'))
  return sign === '-' ? -digits : digits
}

/** A JS number in plain decimal notation (no exponent), via its shortest representation. */
function numberToPlain (value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`)
  const text = String(value)
  if (!/e/i.test(text)) return text
  return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '')
}

export const toKopecks = (value: number | string): bigint => toScaled(value, 2)

/** Kopecks back to a JSON number with at most two decimals. */
export function fromKopecks (kopecks: bigint): number {
  const negative = kopecks < 0n
  const abs = negative ? -kopecks : kopecks
  const text = `${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
  return Number(negative ? `-${text}` : text)
}

/** A numeric string from the database (e.g. "19.90") as a JSON number. */
export const moneyToNumber = (value: string): number => fromKopecks(toKopecks(value))

/** Kopecks as a numeric string for the database. */
export function kopecksToDecimal (kopecks: bigint): string {
  const negative = kopecks < 0n
  const abs = negative ? -kopecks : kopecks
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** Divides with rounding half up (away from zero for positive amounts). */
function divideHalfUp (numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator
  const remainder = numerator % denominator
  return remainder * 2n >= denominator ? quotient + 1n : quotient
}

/**
 * Converts an amount in a currency to rubles: round_half_up(amount × rate, 2).
 * `rate` is rubles per unit (numeric string or number, up to 6 decimals); null
 * means the amount is already in rubles.
 */
export function toRubles (amountKopecks: bigint, rate: string | number | null): bigint {
  if (rate === null) return amountKopecks
  return divideHalfUp(amountKopecks * toScaled(rate, RATE_SCALE), 10n ** BigInt(RATE_SCALE))
}
