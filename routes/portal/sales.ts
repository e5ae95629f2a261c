// The Sales page (docs/portal.md): the shop's sales statistics (docs/sales-stats.md)
// as a chart with its axes and a table, for a range (typed, or one of the presets),
// a grouping and a time zone the seller picks; a week or month the range cuts is
// marked partial, with the days it covers.
// The form is a GET: the page's address holds the choice (a reload or a bookmark
// shows the same figures). The query is checked by the API's own schema and rules
// and answered by the same statement as GET /v1/stats/sales.
import type { FastifyInstance } from 'fastify'
import { salesStats } from '../../services/stats/service.js'
import { SALES_GROUPINGS, salesRange, type SalesGrouping } from '../../domain/sales-stats.js'
import type { PortalLocale } from '../../domain/portal-token.js'
import { partialPeriod, presetRanges, SALES_PRESETS } from '../../domain/sales-periods.js'
import { SalesStatsQuery, type SalesStats } from '../../schemas/stats.js'
import { attempt, formOf, text, validated } from './forms.js'
import { moneyFormatter, type Translate } from './i18n/index.js'
import { formErrors, type FormFields } from './render.js'
import { salesChart } from './sales-chart.js'
import { PORTAL_ZONES } from './time-zone.js'

const fields: FormFields = {
  from: { id: 'from', label: 'sales.from' },
  to: { id: 'to', label: 'sales.to' },
  groupBy: { id: 'group-by', label: 'sales.groupBy' },
  tz: { id: 'tz', label: 'sales.tz' }
}

const dateOf = (day: string) => new Date(`${day}T00:00:00Z`)

/**
 * A row's period or product the locale's way: a day, the week from its Monday, a
 * month; a week or month the range cuts says so, with the days inside the range.
 */
function periodLabel (t: Translate, locale: PortalLocale, stats: SalesStats) {
  const tag = locale === 'ru' ? 'ru-RU' : 'en-GB'
  const day = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' })
  const month = new Intl.DateTimeFormat(tag, { month: 'long', year: 'numeric', timeZone: 'UTC' })
  const { groupBy } = stats
  return (row: SalesStats['rows'][number]) => {
    if (groupBy === 'product') return row.productTitle ?? ''
    const date = dateOf(row.period!)
    const label = groupBy === 'month'
      ? month.format(date)
      : groupBy === 'week' ? t('sales.weekOf', { day: day.format(date) }) : day.format(date)
    const cut = partialPeriod(row.period, groupBy, stats)
    if (!cut) return label
    return t('sales.partial', { label, from: day.format(dateOf(cut.from)), to: day.format(dateOf(cut.to)) })
  }
}

/** A bar's date under the chart: `26 Oct` (a day, a week's Monday), `Oct 2026` (a month). */
function chartDate (locale: PortalLocale, groupBy: SalesGrouping) {
  const tag = locale === 'ru' ? 'ru-RU' : 'en-GB'
  const format = new Intl.DateTimeFormat(tag, groupBy === 'month'
    ? { month: 'short', year: 'numeric', timeZone: 'UTC' }
    : { day: 'numeric', month: 'short', timeZone: 'UTC' })
  return (period: string | null) => (period === null ? '' : format.format(dateOf(period)))
}

export default async function salesPage (fastify: FastifyInstance) {
  fastify.get('/', async function sales (request, reply) {
    const session = request.portalSession!
    const form = formOf(request.query)
    // A field left empty takes its default, as when the parameter is absent.
    const query = Object.fromEntries(
      ['from', 'to', 'groupBy', 'tz'].map((name) => [name, text(form, name).trim()]).filter(([, value]) => value !== '')
    )
    // The session's zone unless the form names another.
    const values = { from: '', to: '', groupBy: 'day', tz: session.tz, ...query }
    const answer = await attempt(async () => {
      const checked = validated(SalesStatsQuery, { tz: session.tz, ...query })
      const range = salesRange(checked)
      return salesStats(fastify.db, session.shopId, range, checked.groupBy)
    })
    const locale = session.locale
    const presetZone = answer.ok ? answer.value.tz : session.tz
    const ranges = presetRanges(presetZone)
    const presets = SALES_PRESETS.map((name) => ({
      name,
      href: '/portal/sales?' + new URLSearchParams({
        ...ranges[name],
        groupBy: answer.ok ? answer.value.groupBy : 'day',
        ...(query.tz === undefined ? {} : { tz: presetZone })
      }).toString(),
      current: answer.ok && answer.value.from === ranges[name].from && answer.value.to === ranges[name].to
    }))
    const common = {
      presets,
      section: 'sales' as const,
      title: 'sales.title' as const,
      groupings: SALES_GROUPINGS,
      zones: PORTAL_ZONES,
      explicitZone: query.tz !== undefined
    }
    if (!answer.ok) {
      return reply.portalPage('sales', { ...common, values, errors: formErrors(answer.error, locale, fields) }, 400)
    }
    const stats = answer.value
    return reply.portalPage('sales', {
      ...common,
      values: { ...values, from: stats.from, to: stats.to, groupBy: stats.groupBy, tz: stats.tz },
      stats,
      money: moneyFormatter(locale),
      periodLabel: (translate: Translate) => periodLabel(translate, locale, stats),
      partial: stats.rows.some((row) => partialPeriod(row.period, stats.groupBy, stats) !== null),
      chartDate: chartDate(locale, stats.groupBy),
      chart: salesChart(stats),
      narrowChart: salesChart(stats, 'narrow')
    })
  })
}
