// /v1/webhook-endpoints (docs/webhooks.md): the shop's webhook endpoints, their
// signing secrets, test deliveries, the delivery log and manual retries. Another
// shop's endpoint or delivery, like an unknown one, is 404 NOT_FOUND.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import {
  createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, MAX_ENDPOINTS_PER_SHOP, rotateEndpointSecret, updateEndpoint, type EndpointChanges,
  type EndpointRow
} from '../../../db/webhook-endpoints.js'
import { createTestDelivery, listDeliveries, retryDelivery, type DeliveryRow } from '../../../db/webhook-deliveries.js'
import { eventTypes } from '../../../domain/event-types.js'
import { isUuid } from '../../../domain/ids.js'
import { decodeDeliveryCursor, encodeDeliveryCursor, type DeliveryStatus } from '../../../domain/webhook-deliveries.js'
import { checkWebhookUrl } from '../../../domain/webhook-url.js'
import { ApiError, validationError } from '../../../domain/errors.js'
import { CommonErrors, Envelope, IdParams, Nullable, sellerSecurity } from '../../../schemas/common.js'
import {
  DeliveryListQuery, DeliveryParams, DeliverySchema, EndpointCreateBody, EndpointPatchBody, EndpointSchema, EndpointSecret
} from '../../../schemas/webhooks.js'

const EndpointEnvelope = Envelope(Type.Object({ endpoint: EndpointSchema }))
const SecretEnvelope = Envelope(Type.Object({ endpoint: EndpointSchema, secret: EndpointSecret }))
const DeliveryEnvelope = Envelope(Type.Object({ delivery: DeliverySchema }))

const iso = (value: Date | null) => value ? value.toISOString() : null

/** An endpoint as the API returns it (EndpointSchema). */
function endpointView (row: EndpointRow): Static<typeof EndpointSchema> {
  return {
    ...row,
    eventTypes: row.eventTypes as Static<typeof EndpointSchema>['eventTypes'],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString()
  }
}

/** A delivery as the API returns it (DeliverySchema). */
function deliveryView (row: DeliveryRow): Static<typeof DeliverySchema> {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.webhookId,
    eventType: row.eventType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastAttemptAt: iso(row.lastAttemptAt),
    nextAttemptAt: iso(row.nextAttemptAt),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString()
  }
}

const endpointNotFound = () => new ApiError(404, 'NOT_FOUND', 'Webhook endpoint not found.')
const deliveryNotFound = () => new ApiError(404, 'NOT_FOUND', 'Webhook delivery not found.')

/** The kinds asked for, each once, in the order of the kinds list ([] = all). */
const canonicalEventTypes = (requested: readonly string[]) => eventTypes.filter((type) => requested.includes(type))

const webhookEndpointsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const egressRules = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }

  // A path id that is not an id names nothing: NOT_FOUND, before schema validation
  // would call it a validation error.
  fastify.addHook('preValidation', async function rejectMalformedIds (request) {
    const params = request.params as { id?: string, deliveryId?: string }
    if (params.id !== undefined && !isUuid(params.id)) throw endpointNotFound()
    if (params.deliveryId !== undefined && !isUuid(params.deliveryId)) throw deliveryNotFound()
  })

  function acceptedUrl (url: string): string {
    const check = checkWebhookUrl(url, egressRules)
    if (!check.ok) throw validationError(`Invalid request: body.url ${check.problem}.`, [{ path: 'body.url', message: check.problem }])
    return check.url
  }

  fastify.post('/', {
    schema: {
      operationId: 'createWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Create a webhook endpoint',
      description: `Registers a URL to receive the shop's events, signed per Standard Webhooks. The response holds the signing \`secret\`, shown only here and on rotation. Events that happened before the endpoint existed are not sent. At most ${MAX_ENDPOINTS_PER_SHOP} endpoints a shop: the next one is 400 VALIDATION_ERROR.`,
      security: sellerSecurity,
      body: EndpointCreateBody,
      response: { 201: SecretEnvelope, ...CommonErrors }
    }
  }, async function createWebhookEndpoint (request, reply) {
    const { url, eventTypes: kinds = [], description = '' } = request.body
    const created = await createEndpoint(fastify.db, request.apiKey!.shopId, { url: acceptedUrl(url), eventTypes: canonicalEventTypes(kinds), description })
    if (!created) throw validationError(`A shop has at most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints; delete one first.`)
    return reply.code(201).send({ success: true as const, data: { endpoint: endpointView(created.endpoint), secret: created.secret } })
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
    const endpoints = await listEndpoints(fastify.db, request.apiKey!.shopId)
    return { success: true as const, data: { endpoints: endpoints.map(endpointView) } }
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
    const endpoint = await findEndpoint(fastify.db, request.apiKey!.shopId, request.params.id)
    if (!endpoint) throw endpointNotFound()
    return { success: true as const, data: { endpoint: endpointView(endpoint) } }
  })

  fastify.patch('/:id', {
    schema: {
      operationId: 'updateWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Change a webhook endpoint',
      description: 'Changes the properties sent. `enabled: false` stops deliveries: the pending ones become `failed` and events that happen while disabled are not sent. `enabled: true` resumes with the events that happen from then on.',
      security: sellerSecurity,
      params: IdParams,
      body: EndpointPatchBody,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function patchWebhookEndpoint (request) {
    const { shopId } = request.apiKey!
    const { url, eventTypes: kinds, description, enabled } = request.body
    const changes: EndpointChanges = {
      ...(url === undefined ? {} : { url: acceptedUrl(url) }),
      ...(kinds === undefined ? {} : { eventTypes: canonicalEventTypes(kinds) }),
      ...(description === undefined ? {} : { description }),
      ...(enabled === undefined ? {} : { enabled })
    }
    const endpoint = Object.keys(changes).length === 0
      ? await findEndpoint(fastify.db, shopId, request.params.id)
      : await updateEndpoint(fastify.db, shopId, request.params.id, changes)
    if (!endpoint) throw endpointNotFound()
    return { success: true as const, data: { endpoint: endpointView(endpoint) } }
  })

  fastify.delete('/:id', {
    schema: {
      operationId: 'deleteWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Delete a webhook endpoint',
      description: 'Deletes the endpoint and its delivery log; nothing more is sent to it. Returns the endpoint as it was.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: EndpointEnvelope, ...CommonErrors }
    }
  }, async function deleteWebhookEndpoint (request) {
    const endpoint = await deleteEndpoint(fastify.db, request.apiKey!.shopId, request.params.id)
    if (!endpoint) throw endpointNotFound()
    return { success: true as const, data: { endpoint: endpointView(endpoint) } }
  })

  fastify.post('/:id/rotate-secret', {
    schema: {
      operationId: 'rotateWebhookSecret',
      tags: ['webhooks'],
      summary: 'Rotate the signing secret',
      description: 'Returns a new secret, shown only now. For 24 hours the previous secret keeps signing too: deliveries carry two signatures, so receivers can switch without missing one. A second rotation drops the older secret at once.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: SecretEnvelope, ...CommonErrors }
    }
  }, async function rotateWebhookSecret (request) {
    const rotated = await rotateEndpointSecret(fastify.db, request.apiKey!.shopId, request.params.id)
    if (!rotated) throw endpointNotFound()
    return { success: true as const, data: { endpoint: endpointView(rotated.endpoint), secret: rotated.secret } }
  })

  fastify.post('/:id/test', {
    schema: {
      operationId: 'testWebhookEndpoint',
      tags: ['webhooks'],
      summary: 'Send a test delivery',
      description: 'Queues a `webhook.test` delivery (`data: {endpointId}`, a fresh `webhook-id`) to this endpoint only, whatever its `eventTypes`, also while it is disabled. It is attempted at once and retried like any delivery.',
      security: sellerSecurity,
      params: IdParams,
      response: { 202: DeliveryEnvelope, ...CommonErrors }
    }
  }, async function testWebhookEndpoint (request, reply) {
    const delivery = await createTestDelivery(fastify.db, request.apiKey!.shopId, request.params.id)
    if (!delivery) throw endpointNotFound()
    fastify.webhookWorker.wake()
    return reply.code(202).send({ success: true as const, data: { delivery: deliveryView(delivery) } })
  })

  fastify.get('/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags: ['webhooks'],
      summary: 'List an endpoint\'s deliveries',
      description: 'The delivery log, newest first. Pass `nextCursor` as `after` for older ones; `nextCursor` is null on the last page.',
      security: sellerSecurity,
      params: IdParams,
      querystring: DeliveryListQuery,
      response: {
        200: Envelope(Type.Object({
          deliveries: Type.Array(DeliverySchema),
          nextCursor: Nullable(Type.String(), { description: 'Pass as `after` for the next (older) page; null when there is none.' })
        })),
        ...CommonErrors
      }
    }
  }, async function listWebhookDeliveries (request) {
    const { shopId } = request.apiKey!
    const { status, limit, after } = request.query
    const cursor = after === undefined ? undefined : decodeDeliveryCursor(after)
    if (cursor === null) throw validationError('Invalid request: query.after is not a nextCursor of this list.', [{ path: 'query.after', message: 'is not a nextCursor of this list' }])
    if (!await findEndpoint(fastify.db, shopId, request.params.id)) throw endpointNotFound()
    const page = await listDeliveries(fastify.db, shopId, request.params.id, { status, limit, after: cursor })
    const last = page.rows.at(-1)
    return {
      success: true as const,
      data: { deliveries: page.rows.map(deliveryView), nextCursor: page.more && last ? encodeDeliveryCursor(last) : null }
    }
  })

  fastify.post('/:id/deliveries/:deliveryId/retry', {
    schema: {
      operationId: 'retryWebhookDelivery',
      tags: ['webhooks'],
      summary: 'Retry a delivery',
      description: 'From any status: the delivery becomes `pending` and is attempted now, with the same `webhook-id`. Its attempt count goes on; if this attempt fails, the schedule continues from there (a delivery past its last scheduled attempt is `failed` again).',
      security: sellerSecurity,
      params: DeliveryParams,
      response: { 202: DeliveryEnvelope, ...CommonErrors }
    }
  }, async function retryWebhookDelivery (request, reply) {
    const delivery = await retryDelivery(fastify.db, request.apiKey!.shopId, request.params.id, request.params.deliveryId)
    if (!delivery) throw deliveryNotFound()
    fastify.webhookWorker.wake()
    return reply.code(202).send({ success: true as const, data: { delivery: deliveryView(delivery) } })
  })
}

export default webhookEndpointsRoutes
