// /v1/products/{id}/stock: the stock the service delivers from (docs/stock.md):
// settings and counts, items added, listed (previews only) and removed. The
// rules live in db/stock/settings.ts and db/stock/items.ts; values never reach a log.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { STOCK_ADD_BODY_LIMIT } from '../../../schemas/body-limits.js'
import { CommonErrors, Envelope, ErrorBody, IdParams, sellerSecurity } from '../../../schemas/common.js'
import {
  RemovedStockItemSchema, StockAddBody, StockAddResult, StockItemListQuery, StockItemPage, StockPatchBody,
  StockRemoveBody, StockSchema
} from '../../../schemas/stock.js'
import * as stockService from '../../../services/stock/service.js'

const StockEnvelope = Envelope(Type.Object({ stock: StockSchema }))
const keyNote = 'Without `VALUES_ENCRYPTION_KEY` on a server database: 503 SERVICE_UNAVAILABLE naming it.'

const stockRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/:id/stock', {
    schema: {
      operationId: 'getStock',
      tags: ['stock'],
      summary: 'Get a product\'s stock',
      description: 'The stock\'s settings and its counts of available, delivered and removed items (per ' +
        'option when `optionFieldId` is set). Every product has one.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: StockEnvelope, ...CommonErrors }
    }
  }, async function getStock (request) {
    const stock = await stockService.getStock(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { stock } }
  })

  fastify.patch('/:id/stock', {
    schema: {
      operationId: 'updateStock',
      tags: ['stock'],
      summary: 'Change a product\'s stock settings',
      description: 'Only the properties sent change. `optionFieldId`: null, or a required, single-choice ' +
        'select field of the product (else 400); it changes only while no item is available (409 STOCK_NOT_EMPTY). ' +
        'Switching `autoDelivery` to `stock` delivers the waiting orders (paid, never taken) it can, oldest ' +
          'first, each in full or not at all.',
      security: sellerSecurity,
      params: IdParams,
      body: StockPatchBody,
      response: { 200: StockEnvelope, ...CommonErrors, 409: Type.Ref(ErrorBody) }
    }
  }, async function patchStock (request) {
    const { stock } = await stockService.updateStock(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return { success: true as const, data: { stock } }
  })

  fastify.post('/:id/stock/items', {
    bodyLimit: STOCK_ADD_BODY_LIMIT,
    config: { idempotent: true },
    schema: {
      operationId: 'addStockItems',
      tags: ['stock'],
      summary: 'Add values to a product\'s stock',
      description: 'Adds `values` (stored trimmed and encrypted), in their order. A value equal to an ' +
        'available or delivered item of the product, or repeated in the request, is not added and is counted ' +
        'in `duplicates`. ' +
        'With `autoDelivery: stock` the waiting orders are then filled (`filledOrders`). The body is at most ' +
          '8 MiB (413 beyond). Honours `Idempotency-Key`. ' + keyNote,
      security: sellerSecurity,
      params: IdParams,
      body: StockAddBody,
      response: {
        201: Envelope(StockAddResult),
        ...CommonErrors,
        409: Type.Ref(ErrorBody),
        413: Type.Ref(ErrorBody),
        422: Type.Ref(ErrorBody)
      }
    }
  }, async function addItems (request, reply) {
    const { filledOrderIds: _ids, ...result } =
      await stockService.addStockItems(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return reply.code(201).send({ success: true as const, data: result })
  })

  fastify.get('/:id/stock/items', {
    schema: {
      operationId: 'listStockItems',
      tags: ['stock'],
      summary: 'List a product\'s stock items',
      description: 'Newest first, `limit` 1–100 (default 50), filtered by `status` and `optionId`; `after` is ' +
        'the previous page\'s `nextCursor`. Items show a 4-character `preview`, never their value.',
      security: sellerSecurity,
      params: IdParams,
      querystring: StockItemListQuery,
      response: { 200: Envelope(StockItemPage), ...CommonErrors }
    }
  }, async function listItems (request) {
    const page = await stockService.listItems(fastify, request.apiKey!.shopId, request.params.id, request.query)
    return { success: true as const, data: page }
  })

  fastify.post('/:id/stock/items/remove', {
    schema: {
      operationId: 'removeStockItems',
      tags: ['stock'],
      summary: 'Take items back out of the stock',
      description: 'The items `ids` (all available items of this product, each once) become `removed` and are ' +
        'returned with their values. ' +
        'An id that is no item of this product: 404 NOT_FOUND; one that is not available: 409 ' +
          'STOCK_ITEM_UNAVAILABLE (404 wins); a repeated id: 400; nothing is removed then. ' + keyNote,
      security: sellerSecurity,
      params: IdParams,
      body: StockRemoveBody,
      response: {
        200: Envelope(Type.Object({ items: Type.Array(RemovedStockItemSchema) })),
        ...CommonErrors,
        409: Type.Ref(ErrorBody)
      }
    }
  }, async function removeItems (request) {
    const items = await stockService.removeItems(fastify, request.apiKey!.shopId, request.params.id, request.body.ids)
    return { success: true as const, data: { items } }
  })
}

export default stockRoutes
