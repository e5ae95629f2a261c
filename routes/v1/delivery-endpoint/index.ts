// /v1/delivery-endpoint (docs/delivery-endpoint.md): the shop's one delivery
// endpoint, asked for the goods of every purchase of a product with
// `autoDelivery: endpoint`; its secret; and the test call, which sends a real
// signed request for a sample order through the webhook worker's sender and
// judges the answer without storing anything or showing the values.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { clientGone } from '../../../lib/client-gone.js'
import { CommonErrors, Envelope, sellerSecurity } from '../../../schemas/common.js'
import {
  DeliveryEndpointBody, DeliveryEndpointSchema, DeliveryEndpointSecret, DeliveryTestBody, DeliveryTestResult
} from '../../../schemas/delivery-endpoint.js'
import {
  deleteShopDeliveryEndpoint, deliveryEndpointNotFound, findShopDeliveryEndpoint, putShopDeliveryEndpoint,
  rotateShopDeliverySecret, testShopDeliveryEndpoint
} from '../../../services/delivery-endpoint/service.js'

const EndpointEnvelope = Envelope(Type.Object({ deliveryEndpoint: DeliveryEndpointSchema }))

const deliveryEndpointRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'getDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Get the delivery endpoint',
      description: 'The shop\'s delivery endpoint (never its secret); 404 NOT_FOUND when none is registered.',
      security: sellerSecurity,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function getDeliveryEndpoint (request) {
    const deliveryEndpoint = await findShopDeliveryEndpoint(fastify, request.apiKey!.shopId)
    if (!deliveryEndpoint) throw deliveryEndpointNotFound()
    return { success: true as const, data: { deliveryEndpoint } }
  })

  fastify.put('/', {
    schema: {
      operationId: 'putDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Create or replace the delivery endpoint',
      description: 'Registers the URL the service asks for the goods of each purchase of a product with ' +
        '`autoDelivery: "endpoint"`, or replaces it (pending requests use the new URL from their next ' +
        'attempt). `secret` is in the response only when the endpoint is created; a replacement keeps the secret.',
      security: sellerSecurity,
      body: DeliveryEndpointBody,
      response: {
        200: Envelope(Type.Object({
          deliveryEndpoint: DeliveryEndpointSchema,
          secret: Type.Optional(DeliveryEndpointSecret)
        })),
        ...CommonErrors
      }
    }
  }, async function putDeliveryEndpointRoute (request) {
    const data = await putShopDeliveryEndpoint(fastify, request.apiKey!.shopId, request.body)
    return { success: true as const, data }
  })

  fastify.delete('/', {
    schema: {
      operationId: 'deleteDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Delete the delivery endpoint',
      description: 'Nothing more is asked of it: pending requests end `failed` (each with an ' +
        '`order.delivery_failed` event) and new purchases simply stay `paid`. Returns the endpoint as it was.',
      security: sellerSecurity,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function deleteDeliveryEndpointRoute (request) {
    const deliveryEndpoint = await deleteShopDeliveryEndpoint(fastify, request.apiKey!.shopId)
    return { success: true as const, data: { deliveryEndpoint } }
  })

  fastify.post('/rotate-secret', {
    schema: {
      operationId: 'rotateDeliveryEndpointSecret',
      tags: ['delivery'],
      summary: 'Rotate the delivery endpoint\'s secret',
      description: 'Returns a new secret, shown only now. For 24 hours the previous secret keeps signing too ' +
        '(two signatures), as for webhooks.',
      security: sellerSecurity,
      response: {
        200: Envelope(Type.Object({
          deliveryEndpoint: DeliveryEndpointSchema,
          secret: DeliveryEndpointSecret
        })),
        ...CommonErrors
      }
    }
  }, async function rotateDeliveryEndpointSecretRoute (request) {
    return { success: true as const, data: await rotateShopDeliverySecret(fastify, request.apiKey!.shopId) }
  })

  fastify.post('/test', {
    schema: {
      operationId: 'testDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Test the delivery endpoint',
      description: 'Sends a request signed like a real one, with a fresh `webhook-id`, `test: true` and a ' +
        'sample order of the product (`quantity` 1–1000, default 1; no order exists, nothing is stored), ' +
        'waits for the answer (up to the delivery timeout) and judges it: `problems` says in words what would ' +
        'make a real answer fail. The values are never returned. 404 NOT_FOUND when no endpoint is ' +
        'registered; 404 ORDER_NOT_FOUND for another shop\'s product.',
      security: sellerSecurity,
      body: DeliveryTestBody,
      response: { 200: Envelope(Type.Object({ result: DeliveryTestResult })), ...CommonErrors }
    }
  }, async function testDeliveryEndpoint (request, reply) {
    const result = await testShopDeliveryEndpoint(fastify, request.apiKey!.shopId, request.body, clientGone(reply))
    return { success: true as const, data: { result } }
  })
}

export default deliveryEndpointRoutes
