// /v1/stats: what the shop sold, for how much, what was refunded and credited
// (docs/sales-stats.md). The figures come from the orders and the ledger rows
// themselves, in one statement (db/stats/sales.ts), so they agree with the money.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { salesStats } from '../../../services/stats/service.js'
import { salesRange } from '../../../domain/sales-stats.js'
import { CommonErrors, Envelope, sellerSecurity } from '../../../schemas/common.js'
import { SalesStatsQuery, SalesStatsSchema } from '../../../schemas/stats.js'

const statsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/sales', {
    schema: {
      operationId: 'getSalesStats',
      tags: ['stats'],
      summary: 'Sales statistics',
      description: 'Orders bought, their quantity and amounts (`gross`), refunds and credits (credits minus ' +
        'debits) of the shop\'s products with automation, by day, ISO week, month (in the time zone `tz`, every ' +
        'period present, oldest first) or by product (gross descending). `totals` sums the rows. Defaults: the 30 ' +
        'days up to today in `Europe/Moscow`, by day. At most 366 days; `from` after `to`, a date that does not ' +
        'exist or an unknown zone: 400. `refunded` and `credited` are the ledger\'s rows dated in the period, so ' +
        'over any range `credited` is what the shop\'s balance gained.',
      security: sellerSecurity,
      querystring: SalesStatsQuery,
      response: { 200: Envelope(SalesStatsSchema), ...CommonErrors }
    }
  }, async function getSalesStats (request) {
    const { from, to, tz, groupBy, productId } = request.query
    const range = salesRange({ from, to, tz })
    const stats = await salesStats(fastify.db, request.apiKey!.shopId, range, groupBy, productId)
    return { success: true as const, data: stats }
  })
}

export default statsRoutes
