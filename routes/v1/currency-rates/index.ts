// GET /v1/currency-rates: the currency rates the shop has defined.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { currencyRateView, listCurrencyRates } from '../../../services/catalog/service.js'
import { CurrencyRateSchema } from '../../../schemas/catalog.js'
import { CommonErrors, Envelope, sellerSecurity } from '../../../schemas/common.js'

const currencyRatesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'listCurrencyRates',
      tags: ['catalog'],
      summary: 'List the shop\'s currency rates',
      description: 'Rates are rubles per one unit of the currency; use `id` as a product\'s `currencyRateId`.',
      security: sellerSecurity,
      response: { 200: Envelope(Type.Object({ rates: Type.Array(CurrencyRateSchema) })), ...CommonErrors }
    }
  }, async function listRates (request) {
    const rates = await listCurrencyRates(fastify.db, request.apiKey!.shopId)
    return { success: true as const, data: { rates: rates.map(currencyRateView) } }
  })
}

export default currencyRatesRoutes
