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

/** An integer of `scale` decimals back to its exact decimal string ("92.500000"). */
export function scaledToDecimal (scaled: bigint, scale: number): string {
  const negative = scaled < 0n
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, '0')
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  return negative ? `-${text}` : text
}

/** A currency rate (rubles per unit, up to 6 decimals) as an exact numeric string for the database. */
export const rateToDecimal = (rate: number | string): string => scaledToDecimal(toScaled(rate, RATE_SCALE), RATE_SCALE)

export const toKopecks = (value: number | string): bigint => toScaled(value, 2)

/** Kopecks back to a JSON number with at most two decimals. */
export const fromKopecks = (kopecks: bigint): number => Number(scaledToDecimal(kopecks, 2))

/** A numeric string from the database (e.g. "19.90") as a JSON number. */
export const moneyToNumber = (value: string): number => fromKopecks(toKopecks(value))

/** Kopecks as a numeric string for the database. */
export const kopecksToDecimal = (kopecks: bigint): string => scaledToDecimal(kopecks, 2)

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
