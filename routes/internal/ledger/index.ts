// GET /internal/v1/shops/{shopId}/ledger: a shop's money movements and balance.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ledgerView, listLedgerEntries } from '../../../services/orders/service.js'
import { findShop } from '../../../services/shops/service.js'
import { notFound } from '../../../domain/errors.js'
import { Envelope, ErrorBody } from '../../../schemas/common.js'
import { ShopParams, internalSecurity } from '../../../schemas/operator.js'
import { LedgerSchema } from '../../../schemas/orders.js'

const ledgerRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/:shopId/ledger', {
    schema: {
      operationId: 'getShopLedger',
      tags: ['internal'],
      summary: 'Read a shop\'s ledger',
      description: 'One entry per money movement, oldest first: `credit` when a buyer confirmed an order ' +
        '(adds to the balance), `refund` when a cancelled order\'s amount went back to the buyer (leaves the ' +
        'balance alone), `debit` when a claim refunded a completed order (its credit taken back). `balance` = ' +
        'credits − debits.',
      security: internalSecurity,
      params: ShopParams,
      response: { 200: Envelope(LedgerSchema), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) }
    }
  }, async function readLedger (request) {
    const { shopId } = request.params
    if (!await findShop(fastify.db, shopId)) throw notFound('Shop')
    return { success: true as const, data: ledgerView(await listLedgerEntries(fastify.db, shopId)) }
  })
}

export default ledgerRoutes
