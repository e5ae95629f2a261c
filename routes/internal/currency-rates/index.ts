// PUT /internal/v1/shops/{shopId}/currency-rates/{code}: set a shop's rate.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { currencyRateView, upsertCurrencyRate } from '../../../services/catalog/service.js'
import { findShop } from '../../../services/shops/service.js'
import { rateToDecimal } from '../../../domain/money.js'
import { notFound, validationError } from '../../../domain/errors.js'
import { CurrencyCodeSchema, CurrencyRateInputSchema, CurrencyRateSchema } from '../../../schemas/catalog.js'
import { Envelope, ErrorBody, Id } from '../../../schemas/common.js'
import { internalSecurity } from '../../../schemas/operator.js'

const currencyRatesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.put('/:shopId/currency-rates/:code', {
    schema: {
      operationId: 'setShopCurrencyRate',
      tags: ['internal'],
      summary: 'Create or update a currency rate',
      description: 'Sets the shop\'s rate for the currency `code` (rubles per unit); creating it when the ' +
        'shop has none for that code.',
      security: internalSecurity,
      params: Type.Object({ shopId: Id, code: Type.String() }),
      body: CurrencyRateInputSchema,
      response: {
        200: Envelope(Type.Object({ rate: CurrencyRateSchema })),
        400: Type.Ref(ErrorBody),
        401: Type.Ref(ErrorBody),
        404: Type.Ref(ErrorBody)
      }
    }
  }, async function setRate (request) {
    const { shopId, code } = request.params
    // Checked here, not in the params schema: a bad code is a 400, not "not found".
    if (!new RegExp(CurrencyCodeSchema.pattern!).test(code)) {
      throw validationError('Invalid currency code.',
        [{ path: 'params.code', message: CurrencyCodeSchema.description! }])
    }
    if (!await findShop(fastify.db, shopId)) throw notFound('Shop')
    const rate = await upsertCurrencyRate(fastify.db, shopId, code, rateToDecimal(request.body.rate))
    return { success: true as const, data: { rate: currencyRateView(rate) } }
  })
}

export default currencyRatesRoutes
