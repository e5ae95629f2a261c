// Date-times a client may send: RFC 3339 text that JavaScript's Date and
// Postgres' timestamptz read as the same instant. Ajv's `date-time` format is
// wider than either: it allows the leap second 23:59:60 (Date cannot hold it),
// offsets up to ±23:59 (Postgres refuses beyond ±15:59) and year 0000 (which
// Postgres does not have); Date itself rolls 2026-02-30 over into March.
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const daysInMonth = (year: number, month: number) => [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31,
  30, 31][month - 1]

/**
 * The instant `text` names, or null when it is not a date-time both sides agree
 * on: seconds 00–59, offsets within ±15:59, a real calendar day, and years
 * 0001–9999 both as written and once converted to UTC.
 */
export function parseDateTime (text: string): Date | null {
  const match = rfc3339.exec(text)
  if (!match) return null
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number)
  const fraction = match[7] ?? ''
  const sign = match[8] === '-' ? -1 : 1
  const offsetHours = Number(match[9] ?? 0)
  const offsetMinutes = Number(match[10] ?? 0)
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 15 || offsetMinutes > 59) return null
  const instant = new Date(0)
  instant.setUTCFullYear(year, month - 1, day)
  instant.setUTCHours(hour, minute, second, Math.floor(Number(`0${fraction || '.0'}`) * 1000))
  instant.setTime(instant.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000)
  const utcYear = instant.getUTCFullYear()
  return utcYear >= 1 && utcYear <= 9999 ? instant : null
}
