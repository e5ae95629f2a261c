// Sales statistics (docs/sales-stats.md): the query and the answer of GET /v1/stats/sales.
import { Type, type Static } from '@sinclair/typebox'
import { SALES_GROUPINGS } from '../domain/sales-stats.js'
import { Id, Nullable, StringEnum } from './common.js'

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A date, `YYYY-MM-DD`.' })

export const SalesStatsQuery = Type.Object({
  from: Type.Optional(Type.String({
    ...Day,
    description: 'First day of the range (inclusive), in `tz`. Default: 29 days before `to`.'
  })),
  to: Type.Optional(Type.String({
    ...Day,
    description: 'Last day of the range (inclusive), in `tz`. Default: today in `tz`. ' +
      'At most 366 days counting both ends.'
  })),
  groupBy: StringEnum(SALES_GROUPINGS, {
    default: 'day',
    description: '`day` (default), `week` (ISO weeks, from Monday), `month`, or `product`.'
  }),
  tz: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'IANA time zone the days are counted in (e.g. `Europe/Moscow`, the default). Echoed as given.'
  })),
  productId: Type.Optional(Type.String({ ...Id, description: 'Only this product of the shop (another shop\'s: 404).' }))
})
export type SalesStatsQuery = Static<typeof SalesStatsQuery>

/** Money summed exactly in the database: a JSON number with at most two decimals, negative for a net debit. */
const Sum = (description: string) => Type.Number({ 'x-decimals': 2, description })

const figures = {
  orders: Type.Integer({
    minimum: 0,
    description: 'Orders bought in the period (by purchase time in `tz`), whatever their status now.'
  }),
  quantity: Type.Integer({ minimum: 0, description: 'Their quantities summed.' }),
  gross: Sum('Their amounts summed (rubles).'),
  refunded: Sum('Refund ledger rows dated in the period (rubles).'),
  credited: Sum('Credit ledger rows dated in the period minus debit rows (rubles): what the shop\'s balance gained.')
}

export const SalesRowSchema = Type.Object({
  period: Nullable(Type.String({ format: 'date' }), {
    description: 'First day of the group (a Monday, a 1st); null by product.'
  }),
  productId: Nullable(Id, { description: 'The product, when grouped by product; else null.' }),
  productTitle: Nullable(Type.String(), { description: 'Its current title, when grouped by product; else null.' }),
  ...figures
}, { 'x-component': 'SalesRow', title: 'SalesRow' })

export const SalesStatsSchema = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  tz: Type.String(),
  groupBy: StringEnum(SALES_GROUPINGS),
  rows: Type.Array(SalesRowSchema, {
    description: 'Oldest first, every period of the range present; by product, gross descending then title.'
  }),
  totals: Type.Object(figures, { description: 'The rows\' figures summed.' })
}, { 'x-component': 'SalesStats', title: 'SalesStats' })
export type SalesStats = Static<typeof SalesStatsSchema>
