// /v1/orders: the seller's work queue and the fulfilment actions. Only orders of
// the shop's products with automation (`external: true`) are visible here.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as orderService from '../../../services/orders/service.js'
import { DELIVER_BODY_LIMIT } from '../../../schemas/body-limits.js'
import { CommonErrors, Envelope, ErrorBody, IdParams, sellerSecurity } from '../../../schemas/common.js'
import { CancelBody, DeliverBody, OrderListQuery, OrderSchema } from '../../../schemas/orders.js'

const OrderEnvelope = Envelope(Type.Object({ order: OrderSchema }))
const transitionResponses = {
  200: OrderEnvelope,
  ...CommonErrors,
  409: Type.Ref(ErrorBody),
  413: Type.Ref(ErrorBody),
  422: Type.Ref(ErrorBody)
}
const idempotencyNote = 'Send an `Idempotency-Key` header to make a retry safe: the same request with the ' +
  'same key returns the first response again (with `Idempotency-Replayed: true`) and has no second effect.'

const ordersRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'listOrders',
      tags: ['orders'],
      summary: 'List orders',
      description: 'The shop\'s orders of products with automation. Without `status`, the new (`paid`) ' +
        'orders, oldest first: the work queue. `total` counts every matching order.',
      security: sellerSecurity,
      querystring: OrderListQuery,
      response: {
        200: Envelope(Type.Object({
          orders: Type.Array(OrderSchema),
          total: Type.Integer(),
          page: Type.Integer(),
          limit: Type.Integer()
        })),
        ...CommonErrors
      }
    }
  }, async function listShopOrders (request) {
    const page = await orderService.listShopOrders(fastify, request.apiKey!.shopId, request.query)
    return { success: true as const, data: page }
  })

  fastify.get('/:id', {
    schema: {
      operationId: 'getOrder',
      tags: ['orders'],
      summary: 'Get an order',
      description: 'One order of the shop. Another shop\'s order, or one whose product has no automation, is ' +
        '404 ORDER_NOT_FOUND.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: OrderEnvelope, ...CommonErrors }
    }
  }, async function getShopOrder (request) {
    const order = await orderService.getShopOrder(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { order } }
  })

  fastify.post('/:id/take', {
    // Taken only from `paid`, and no write attaches values to an order it leaves paid: no value in the answer.
    config: { idempotent: true, plainIdempotencyRecord: true },
    schema: {
      operationId: 'takeOrder',
      tags: ['orders'],
      summary: 'Take an order into work',
      description: '`paid` → `processing`; `assigneeType` becomes `api` and `takenAt` is set. Any ' +
        `other status: 409 ORDER_INVALID_STATUS. Of concurrent takes exactly one wins. No body. ${idempotencyNote}`,
      security: sellerSecurity,
      params: IdParams,
      response: transitionResponses
    }
  }, async function take (request) {
    const order = await orderService.takeOrder(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { order } }
  })

  fastify.post('/:id/deliver', {
    bodyLimit: DELIVER_BODY_LIMIT,
    config: { idempotent: true },
    schema: {
      operationId: 'deliverOrder',
      tags: ['orders'],
      summary: 'Mark an order delivered',
      description: '`processing` → `awaiting_confirmation`; `deliveredAt` is set. The body may attach ' +
        'the issued value(s): `deliveredValues` becomes `values`, or `[value]`, or `[]`; ' +
        '`deliveredValue` is them joined by a line feed (null when none). The shop is credited once the ' +
        `buyer confirms receipt. ${idempotencyNote}`,
      security: sellerSecurity,
      params: IdParams,
      body: DeliverBody,
      response: transitionResponses
    }
  }, async function deliver (request) {
    const order = await orderService.deliverOrder(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return { success: true as const, data: { order } }
  })

  fastify.post('/:id/cancel', {
    config: { idempotent: true },
    schema: {
      operationId: 'cancelOrder',
      tags: ['orders'],
      summary: 'Cancel an order',
      description: 'From `paid`, `processing` or `awaiting_confirmation` → `cancelled`; the buyer is ' +
        'refunded the full amount, exactly once. With `restock: true` the stock items delivered to it ' +
        'become available again in the same transaction (and may fill waiting orders). A completed or ' +
        `cancelled order: 409 ORDER_INVALID_STATUS. ${idempotencyNote}`,
      security: sellerSecurity,
      params: IdParams,
      body: CancelBody,
      response: transitionResponses
    }
  }, async function cancel (request) {
    const order = await orderService.cancelOrder(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return { success: true as const, data: { order } }
  })
}

export default ordersRoutes
