// The rules of a sales statistics request (docs/sales-stats.md): which time zones
// are accepted, the default range (the 30 days up to today in the zone), and the
// bounds of a range (at most 366 days counting both ends, `from` not after `to`).
import { ruleOf, validationError } from './errors.js'

export const SALES_GROUPINGS = ['day', 'week', 'month', 'product'] as const
export type SalesGrouping = typeof SALES_GROUPINGS[number]

export const DEFAULT_SALES_TIME_ZONE = 'Europe/Moscow'
/** The longest range, in days counting both ends: one year, a leap one included. */
export const MAX_SALES_RANGE_DAYS = 366
/** The default range, in days counting both ends, up to today. */
export const DEFAULT_SALES_RANGE_DAYS = 30

// An IANA zone name: `UTC`, `GMT`, or an area and a location (`Europe/Moscow`,
// `America/Argentina/Salta`, `Etc/GMT+3`). Abbreviations (`MSK`, `PST`) and offsets
// (`+03:00`) are refused: Postgres would read them as fixed offsets, a POSIX
// offset with its sign reversed, and ICU as something else.
const zoneName = /^(?:UTC|GMT|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+)$/

/** Whether `name` is an IANA time zone the service knows (Intl's copy of the tz database). */
export function isTimeZone (name: string): boolean {
  if (!zoneName.test(name)) return false
  try {
    Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

const DAY_MS = 86_400_000
const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/

/** The day `text` (`YYYY-MM-DD`) names as days since 1970-01-01, or null unless it is a real date of years 1–9999. */
export function parseDay (text: string): number | null {
  const match = isoDate.exec(text)
  if (!match) return null
  const [year, month, day] = match.slice(1).map(Number)
  if (year < 1) return null
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null
  return Math.round(date.getTime() / DAY_MS)
}

/** Days since 1970-01-01 back to `YYYY-MM-DD`. */
export function formatDay (days: number): string {
  const date = new Date(days * DAY_MS)
  const two = (n: number) => String(n).padStart(2, '0')
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`
}

/** The date (`YYYY-MM-DD`) it is at `now` in time zone `tz`. */
export function todayIn (tz: string, now: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(now)
  const part = (type: string) => parts.find((p) => p.type === type)!.value
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`
}

export interface SalesRangeInput { from?: string, to?: string, tz?: string }
export interface SalesRange { from: string, to: string, tz: string }

/**
 * The range a request asks for, its defaults filled in: `tz` Europe/Moscow, `to`
 * today in `tz`, `from` 29 days before `to`. A zone that is not an IANA zone, a
 * date that is not a real one, `from` after `to` or more than 366 days: 400.
 */
export function salesRange (input: SalesRangeInput, now: Date = new Date()): SalesRange {
  const tz = input.tz ?? DEFAULT_SALES_TIME_ZONE
  if (!isTimeZone(tz)) {
    throw validationError('Unknown time zone.', [
      {
        path: 'querystring.tz',
        message: 'must be an IANA time zone name, such as Europe/Moscow',
        rule: ruleOf('x-time-zone', {})
      }
    ])
  }
  const given = {
    from: input.from === undefined ? null : parseDay(input.from),
    to: input.to === undefined ? null : parseDay(input.to)
  }
  const bad = (['from', 'to'] as const).filter((name) => input[name] !== undefined && given[name] === null)
  if (bad.length > 0) {
    throw validationError('Invalid date.', bad.map((name) => ({
      path: `querystring.${name}`,
      message: 'must be a real date YYYY-MM-DD (years 0001–9999)',
      rule: ruleOf('x-date', {})
    })))
  }
  const to = given.to ?? parseDay(todayIn(tz, now))!
  const from = given.from ?? to - (DEFAULT_SALES_RANGE_DAYS - 1)
  if (from > to) {
    throw validationError('The range is empty.', [
      { path: 'querystring.from', message: 'must not be after to', rule: ruleOf('x-range-order', {}) }
    ])
  }
  if (to - from + 1 > MAX_SALES_RANGE_DAYS) {
    throw validationError('The range is too long.', [
      {
        path: 'querystring.from',
        message: `the range must be at most ${MAX_SALES_RANGE_DAYS} days, counting ` +
        'both ends',
        rule: ruleOf('x-range-length', { max: MAX_SALES_RANGE_DAYS })
      }
    ])
  }
  return { from: formatDay(from), to: formatDay(to), tz }
}
