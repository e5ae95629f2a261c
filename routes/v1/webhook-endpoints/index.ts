// /v1/webhook-endpoints (docs/webhooks.md): the shop's webhook endpoints, their
// signing secrets, test deliveries, the delivery log and manual retries. Another
// shop's endpoint or delivery, like an unknown one, is 404 NOT_FOUND.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_ENDPOINTS_PER_SHOP } from '../../../services/webhooks/service.js'
import { isUuid } from '../../../domain/ids.js'
import { CommonErrors, Envelope, IdParams, Nullable, sellerSecurity } from '../../../schemas/common.js'
import {
  SendListQuery, SendParams, WebhookSendSchema, EndpointCreateBody, EndpointPatchBody, EndpointSchema, EndpointSecret
} from '../../../schemas/webhooks.js'
import * as webhookService from '../../../services/webhooks/service.js'
import { endpointNotFound, sendNotFound } from '../../../services/webhooks/service.js'

const EndpointEnvelope = Envelope(Type.Object({ endpoint: EndpointSchema }))
const SecretEnvelope = Envelope(Type.Object({ endpoint: EndpointSchema, secret: EndpointSecret }))
const SendEnvelope = Envelope(Type.Object({ delivery: WebhookSendSchema }))

const webhookEndpointsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  // A path id that is not an id names nothing: NOT_FOUND, before schema validation
  // would call it a validation error.
  fastify.addHook('preValidation', async function rejectMalformedIds (request) {
    const params = request.params as { id?: string, deliveryId?: string }
    if (params.id !== undefined && !isUuid(params.id)) throw endpointNotFound()
    if (params.deliveryId !== undefined && !isUuid(params.deliveryId)) throw sendNotFound()
  })

  fastify.post('/', {
    schema: {
      operationId: 'createWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Create a webhook endpoint',
      description: 'Registers a URL to receive the shop\'s events, signed per Standard Webhooks. The response ' +
        'holds the signing `secret`, shown only here and on rotation. Events that happened before the ' +
        `endpoint existed are not sent. At most ${MAX_ENDPOINTS_PER_SHOP} endpoints a shop: the next one is ` +
        '400 VALIDATION_ERROR.',
      security: sellerSecurity,
      body: EndpointCreateBody,
      response: { 201: SecretEnvelope, ...CommonErrors }
    }
  }, async function createWebhookEndpoint (request, reply) {
    const created = await webhookService.createWebhookEndpoint(fastify, request.apiKey!.shopId, request.body)
    return reply.code(201).send({ success: true as const, data: created })
  })

  fastify.get('/', {
    schema: {
      operationId: 'listWebhookEndpoints',
      tags: ['webhooks'],
      summary: 'List webhook endpoints',
      description: 'The shop\'s endpoints, oldest first (never their secrets).',
      security: sellerSecurity,
      response: { 200: Envelope(Type.Object({ endpoints: Type.Array(EndpointSchema) })), ...CommonErrors }
    }
  }, async function listWebhookEndpoints (request) {
    const endpoints = await webhookService.listWebhookEndpoints(fastify, request.apiKey!.shopId)
    return { success: true as const, data: { endpoints } }
  })

  fastify.get('/:id', {
    schema: {
      operationId: 'getWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Get a webhook endpoint',
      description: 'One of the shop\'s endpoints (its secret is shown only on creation and rotation).',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function getWebhookEndpoint (request) {
    const endpoint = await webhookService.getWebhookEndpoint(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { endpoint } }
  })

  fastify.patch('/:id', {
    schema: {
      operationId: 'updateWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Change a webhook endpoint',
      description: 'Changes the properties sent. `enabled: false` stops deliveries: the pending ones become ' +
        '`failed` and events that happen while disabled are not sent. `enabled: true` resumes with the events ' +
        'that happen from then on.',
      security: sellerSecurity,
      params: IdParams,
      body: EndpointPatchBody,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function patchWebhookEndpoint (request) {
    const endpoint = await webhookService.updateWebhookEndpoint(
      fastify, request.apiKey!.shopId, request.params.id, request.body
    )
    return { success: true as const, data: { endpoint } }
  })

  fastify.delete('/:id', {
    schema: {
      operationId: 'deleteWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Delete a webhook endpoint',
      description: 'Deletes the endpoint and its delivery log; nothing more is sent to it. Returns the ' +
        'endpoint as it was.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function deleteWebhookEndpoint (request) {
    return {
      success: true as const,
      data: { endpoint: await webhookService.deleteWebhookEndpoint(fastify, request.apiKey!.shopId, request.params.id) }
    }
  })

  fastify.post('/:id/rotate-secret', {
    schema: {
      operationId: 'rotateWebhookSecret',
      tags: ['webhooks'],
      summary: 'Rotate the signing secret',
      description: 'Returns a new secret, shown only now. For 24 hours the previous secret keeps signing too: ' +
        'deliveries carry two signatures, so receivers can switch without missing one. A second rotation ' +
        'drops the older secret at once.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: SecretEnvelope, ...CommonErrors }
    }
  }, async function rotateWebhookSecret (request) {
    const data = await webhookService.rotateWebhookSecret(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data }
  })

  fastify.post('/:id/test', {
    schema: {
      operationId: 'testWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Send a test delivery',
      description: 'Queues a `webhook.test` delivery (`data: {endpointId}`, a fresh `webhook-id`) to this ' +
        'endpoint only, whatever its `eventTypes`, also while it is disabled. It is attempted at once and ' +
        'retried like any delivery.',
      security: sellerSecurity,
      params: IdParams,
      response: { 202: SendEnvelope, ...CommonErrors }
    }
  }, async function testWebhookEndpoint (request, reply) {
    const delivery = await webhookService.sendWebhookTest(fastify, request.apiKey!.shopId, request.params.id)
    return reply.code(202).send({ success: true as const, data: { delivery } })
  })

  fastify.get('/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags: ['webhooks'],
      summary: 'List an endpoint\'s deliveries',
      description: 'The delivery log, newest first. Pass `nextCursor` as `after` for older ones; `nextCursor` ' +
        'is null on the last page.',
      security: sellerSecurity,
      params: IdParams,
      querystring: SendListQuery,
      response: {
        200: Envelope(Type.Object({
          deliveries: Type.Array(WebhookSendSchema),
          nextCursor: Nullable(Type.String(), {
            description: 'Pass as `after` for the next (older) page; null when there is none.'
          })
        })),
        ...CommonErrors
      }
    }
  }, async function listWebhookDeliveries (request) {
    return {
      success: true as const,
      data: await webhookService.listWebhookSends(fastify, request.apiKey!.shopId, request.params.id, request.query)
    }
  })

  fastify.post('/:id/deliveries/:deliveryId/retry', {
    schema: {
      operationId: 'retryWebhookDelivery',
      tags: ['webhooks'],
      summary: 'Retry a delivery',
      description: 'From any status: the delivery becomes `pending` and is attempted now, with the same ' +
        '`webhook-id`. Its attempt count goes on; if this attempt fails, the schedule continues from there (a ' +
        'delivery past its last scheduled attempt is `failed` again).',
      security: sellerSecurity,
      params: SendParams,
      response: { 202: SendEnvelope, ...CommonErrors }
    }
  }, async function retryWebhookDelivery (request, reply) {
    const delivery = await webhookService.retryWebhookSend(
      fastify, request.apiKey!.shopId, request.params.id, request.params.deliveryId
    )
    return reply.code(202).send({ success: true as const, data: { delivery } })
  })
}

export default webhookEndpointsRoutes
