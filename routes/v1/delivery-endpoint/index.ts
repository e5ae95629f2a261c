// /v1/delivery-endpoint (docs/delivery-endpoint.md): the shop's one delivery
// endpoint, asked for the goods of every purchase of a product with
// `autoDelivery: endpoint`; its secret; and the test call, which sends a real
// signed request for a sample order through the webhook worker's sender and
// judges the answer without storing anything or showing the values.
import { randomUUID } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  deleteDeliveryEndpoint, deliveryEndpointTarget, findDeliveryEndpoint, putDeliveryEndpoint, rotateDeliverySecret, sampleOrder
} from '../../../db/delivery-endpoint.js'
import { judgeAnswer } from '../../../domain/delivery-answer.js'
import { DELIVERY_REQUEST_TYPE } from '../../../domain/event-types.js'
import { checkWebhookUrl } from '../../../domain/webhook-url.js'
import { ApiError, orderNotFound, validationError } from '../../../domain/errors.js'
import { CommonErrors, Envelope, sellerSecurity } from '../../../schemas/common.js'
import {
  DeliveryEndpointBody, DeliveryEndpointSchema, DeliveryEndpointSecret, DeliveryTestBody, DeliveryTestResult
} from '../../../schemas/delivery-endpoint.js'
import { webhookBody } from '../../../webhooks/body.js'

const EndpointEnvelope = Envelope(Type.Object({ deliveryEndpoint: DeliveryEndpointSchema }))
const endpointNotFound = () => new ApiError(404, 'NOT_FOUND', 'No delivery endpoint is registered: PUT /v1/delivery-endpoint first.')

const iso = (value: Date) => value.toISOString()

/** The endpoint as the API returns it (DeliveryEndpointSchema). */
function deliveryEndpointView (row: { url: string, createdAt: Date, updatedAt: Date }) {
  return { url: row.url, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) }
}

const deliveryEndpointRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const egressRules = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }

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
    const endpoint = await findDeliveryEndpoint(fastify.db, request.apiKey!.shopId)
    if (!endpoint) throw endpointNotFound()
    return { success: true as const, data: { deliveryEndpoint: deliveryEndpointView(endpoint) } }
  })

  fastify.put('/', {
    schema: {
      operationId: 'putDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Create or replace the delivery endpoint',
      description: 'Registers the URL the service asks for the goods of each purchase of a product with `autoDelivery: "endpoint"`, or replaces it (pending requests use the new URL from their next attempt). `secret` is in the response only when the endpoint is created; a replacement keeps the secret.',
      security: sellerSecurity,
      body: DeliveryEndpointBody,
      response: {
        200: Envelope(Type.Object({ deliveryEndpoint: DeliveryEndpointSchema, secret: Type.Optional(DeliveryEndpointSecret) })),
        ...CommonErrors
      }
    }
  }, async function putDeliveryEndpointRoute (request) {
    const check = checkWebhookUrl(request.body.url, egressRules)
    if (!check.ok) throw validationError(`Invalid request: body.url ${check.problem}.`, [{ path: 'body.url', message: check.problem }])
    const { endpoint, secret } = await putDeliveryEndpoint(fastify.db, request.apiKey!.shopId, check.url)
    return { success: true as const, data: { deliveryEndpoint: deliveryEndpointView(endpoint), ...(secret === null ? {} : { secret }) } }
  })

  fastify.delete('/', {
    schema: {
      operationId: 'deleteDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Delete the delivery endpoint',
      description: 'Nothing more is asked of it: pending requests end `failed` (each with an `order.delivery_failed` event) and new purchases simply stay `paid`. Returns the endpoint as it was.',
      security: sellerSecurity,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function deleteDeliveryEndpointRoute (request) {
    const endpoint = await deleteDeliveryEndpoint(fastify.db, request.apiKey!.shopId)
    if (!endpoint) throw endpointNotFound()
    return { success: true as const, data: { deliveryEndpoint: deliveryEndpointView(endpoint) } }
  })

  fastify.post('/rotate-secret', {
    schema: {
      operationId: 'rotateDeliveryEndpointSecret',
      tags: ['delivery'],
      summary: 'Rotate the delivery endpoint\'s secret',
      description: 'Returns a new secret, shown only now. For 24 hours the previous secret keeps signing too (two signatures), as for webhooks.',
      security: sellerSecurity,
      response: { 200: Envelope(Type.Object({ deliveryEndpoint: DeliveryEndpointSchema, secret: DeliveryEndpointSecret })), ...CommonErrors }
    }
  }, async function rotateDeliveryEndpointSecretRoute (request) {
    const rotated = await rotateDeliverySecret(fastify.db, request.apiKey!.shopId)
    if (!rotated) throw endpointNotFound()
    return { success: true as const, data: { deliveryEndpoint: deliveryEndpointView(rotated.endpoint), secret: rotated.secret } }
  })

  fastify.post('/test', {
    schema: {
      operationId: 'testDeliveryEndpoint',
      tags: ['delivery'],
      summary: 'Test the delivery endpoint',
      description: 'Sends a request signed like a real one, with a fresh `webhook-id`, `test: true` and a sample order of the product (`quantity` 1–1000, default 1; no order exists, nothing is stored), waits for the answer (up to the delivery timeout) and judges it: `problems` says in words what would make a real answer fail. The values are never returned. 404 NOT_FOUND when no endpoint is registered; 404 ORDER_NOT_FOUND for another shop\'s product.',
      security: sellerSecurity,
      body: DeliveryTestBody,
      response: { 200: Envelope(Type.Object({ result: DeliveryTestResult })), ...CommonErrors }
    }
  }, async function testDeliveryEndpoint (request) {
    const { shopId } = request.apiKey!
    const target = await deliveryEndpointTarget(fastify.db, shopId)
    if (!target) throw endpointNotFound()
    const order = await sampleOrder(fastify.db, shopId, request.body.productId, request.body.quantity ?? 1)
    if (!order) throw orderNotFound('Product')
    const sent = await fastify.webhookWorker.sender.send({
      url: target.url,
      webhookId: randomUUID(),
      body: webhookBody(DELIVERY_REQUEST_TYPE, new Date().toISOString(), { order, test: true }),
      secrets: target.secrets,
      signal: request.raw.closed ? AbortSignal.abort() : AbortSignal.timeout(config.DELIVERY_TIMEOUT_MS + 1000),
      answer: { timeoutMs: config.DELIVERY_TIMEOUT_MS }
    })
    const judged = judgeAnswer(sent)
    return {
      success: true as const,
      data: {
        result: {
          ok: judged.ok,
          statusCode: sent.statusCode,
          durationMs: sent.durationMs,
          valuesCount: judged.ok ? judged.values.length : judged.valuesCount,
          problems: judged.problems
        }
      }
    }
  })
}

export default deliveryEndpointRoutes
