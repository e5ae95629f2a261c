// The Sales page's ranges and periods (docs/portal.md "Sales"): the preset ranges
// (last 7 days, last week, this month, last month) counted from today in the chosen
// time zone, and whether a row's week or month is cut by the range (a partial
// period: its figures cover only the days inside the range).
import { formatDay, parseDay, todayIn, type SalesGrouping } from './sales-stats.js'

export const SALES_PRESETS = ['last7Days', 'lastWeek', 'thisMonth', 'lastMonth'] as const
export type SalesPreset = typeof SALES_PRESETS[number]

/** The first day of the month of `day` (days since 1970-01-01), and the first of the next. */
function monthOf (day: number): { first: number, next: number } {
  const date = new Date(day * 86_400_000)
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / 86_400_000
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / 86_400_000
  return { first, next }
}

/** The Monday of the ISO week of `day` (1970-01-01 was a Thursday). */
const mondayOf = (day: number) => day - ((day + 3) % 7)

/** Each preset's range, `YYYY-MM-DD` both inclusive, from today in `tz`. */
export function presetRanges (tz: string, now: Date = new Date()): Record<SalesPreset, { from: string, to: string }> {
  const today = parseDay(todayIn(tz, now))!
  const thisMonth = monthOf(today)
  const lastMonth = monthOf(thisMonth.first - 1)
  const lastMonday = mondayOf(today) - 7
  return {
    last7Days: { from: formatDay(today - 6), to: formatDay(today) },
    lastWeek: { from: formatDay(lastMonday), to: formatDay(lastMonday + 6) },
    thisMonth: { from: formatDay(thisMonth.first), to: formatDay(today) },
    lastMonth: { from: formatDay(lastMonth.first), to: formatDay(lastMonth.next - 1) }
  }
}

/**
 * The days of the row's period inside the range, when the range cuts it (a week
 * or a month that begins before `from` or ends after `to`); null for a whole
 * period, a day, or a product.
 */
export function partialPeriod (
  period: string | null, groupBy: SalesGrouping, range: { from: string, to: string }
): { from: string, to: string } | null {
  if (period === null || (groupBy !== 'week' && groupBy !== 'month')) return null
  const first = parseDay(period)!
  const last = groupBy === 'week' ? first + 6 : monthOf(first).next - 1
  const from = parseDay(range.from)!
  const to = parseDay(range.to)!
  if (first >= from && last <= to) return null
  return { from: formatDay(Math.max(first, from)), to: formatDay(Math.min(last, to)) }
}
