// /v1/orders/{id}/delivery-request (docs/delivery-endpoint.md): an order's
// request to the shop's delivery endpoint, with every attempt, and a retry of a
// failed one while the order is still paid.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { findDeliveryRequest, retryDeliveryRequest } from '../../../services/delivery-endpoint/service.js'
import { getShopOrder } from '../../../services/orders/service.js'
import { ApiError } from '../../../domain/errors.js'
import { CommonErrors, Envelope, ErrorBody, IdParams, sellerSecurity } from '../../../schemas/common.js'
import { DeliveryRequestSchema } from '../../../schemas/delivery-endpoint.js'

const RequestEnvelope = Envelope(Type.Object({ deliveryRequest: DeliveryRequestSchema }))
const requestNotFound = () => new ApiError('NOT_FOUND', 'The order had no delivery request.')

const deliveryRequestRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/:id/delivery-request', {
    schema: {
      operationId: 'getDeliveryRequest',
      tags: ['delivery'],
      summary: 'Get an order\'s delivery request',
      description: 'The request the service made to the shop\'s delivery endpoint for this order, with every ' +
        'attempt. 404 ORDER_NOT_FOUND for an unknown order, 404 NOT_FOUND when the order had no request.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: RequestEnvelope, ...CommonErrors }
    }
  }, async function getDeliveryRequest (request) {
    const { shopId } = request.apiKey!
    const found = await findDeliveryRequest(fastify.db, shopId, request.params.id)
    if (!found) {
      await getShopOrder(fastify, shopId, request.params.id)
      throw requestNotFound()
    }
    return { success: true as const, data: { deliveryRequest: found } }
  })

  fastify.post('/:id/delivery-request/retry', {
    schema: {
      operationId: 'retryDeliveryRequest',
      tags: ['delivery'],
      summary: 'Retry a failed delivery request',
      description: 'Starts a fresh round of attempts now, to the current delivery endpoint. Only from ' +
        '`failed` and only while the order is `paid`: otherwise 409 ORDER_INVALID_STATUS. 404 NOT_FOUND when ' +
        'the order had no request or no delivery endpoint is registered. No body.',
      security: sellerSecurity,
      params: IdParams,
      response: { 202: RequestEnvelope, ...CommonErrors, 409: Type.Ref(ErrorBody) }
    }
  }, async function retryDeliveryRequestRoute (request, reply) {
    const { shopId } = request.apiKey!
    const result = await retryDeliveryRequest(fastify.db, shopId, request.params.id)
    if ('request' in result) {
      return reply.code(202).send({
        success: true as const,
        data: { deliveryRequest: result.request }
      })
    }
    if (result.refused === 'invalid-status') {
      throw new ApiError('ORDER_INVALID_STATUS', 'Only a failed request of a paid order can be retried ' +
        `(${result.status}).`)
    }
    if (result.refused === 'no-endpoint') {
      throw new ApiError('NOT_FOUND', 'No delivery endpoint is registered: PUT /v1/delivery-endpoint first.')
    }
    await getShopOrder(fastify, shopId, request.params.id)
    throw requestNotFound()
  })
}

export default deliveryRequestRoutes
