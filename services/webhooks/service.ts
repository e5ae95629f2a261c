// What each /v1/webhook-endpoints call does once its input passed the schema:
// the URL rules, the endpoint limit, the not-found errors and the views. The
// seller API's routes and the portal's Webhooks page (routes/portal) both call
// these, so a change made in the browser follows the same rules and writes the
// same rows and events as the API.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  MAX_ENDPOINTS_PER_SHOP,
  rotateEndpointSecret,
  updateEndpoint,
  type EndpointChanges,
  type EndpointRow
} from '../../db/webhooks/endpoints.js'
import {
  createTestSend, listSends, retryFailedSends, retrySend, type WebhookSendRow
} from '../../db/webhooks/sends.js'
import { eventTypes } from '../../domain/event-types.js'
import { isUuid } from '../../domain/ids.js'
import { decodeSendCursor, encodeSendCursor, type SendStatus } from '../../domain/webhook-sends.js'
import { checkWebhookUrl } from '../../domain/webhook-url.js'
import { ApiError, validationError } from '../../domain/errors.js'
import type {
  SendListQuery,
  WebhookSendSchema,
  EndpointCreateBody,
  EndpointPatchBody,
  EndpointSchema
} from '../../schemas/webhooks.js'

export type EndpointView = Static<typeof EndpointSchema>
export type WebhookSendView = Static<typeof WebhookSendSchema>

const iso = (value: Date | null) => (value ? value.toISOString() : null)

/** An endpoint as the API returns it (EndpointSchema). */
function endpointView (row: EndpointRow): EndpointView {
  return {
    ...row,
    eventTypes: row.eventTypes as EndpointView['eventTypes'],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString()
  }
}

/** A delivery as the API returns it (WebhookSendSchema). */
function sendView (row: WebhookSendRow): WebhookSendView {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.webhookId,
    eventType: row.eventType as WebhookSendView['eventType'],
    status: row.status as SendStatus,
    attempts: row.attempts,
    lastAttemptAt: iso(row.lastAttemptAt),
    nextAttemptAt: iso(row.nextAttemptAt),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString()
  }
}

export const endpointNotFound = () => new ApiError('NOT_FOUND', 'Webhook endpoint not found.')
export const sendNotFound = () => new ApiError('NOT_FOUND', 'Webhook delivery not found.')

/** The kinds asked for, each once, in the order of the kinds list ([] = all). */
const canonicalEventTypes = (requested: readonly string[]) => eventTypes.filter((type) => requested.includes(type))

export function webhookEndpointService (fastify: FastifyInstance) {
  const { config } = fastify
  const egressRules = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }

  function acceptedUrl (url: string): string {
    const check = checkWebhookUrl(url, egressRules)
    if (!check.ok) {
      throw validationError(`Invalid request: body.url ${check.problem}.`, [
        { path: 'body.url', message: check.problem }
      ])
    }
    return check.url
  }

  async function ownEndpoint (shopId: string, endpointId: string): Promise<EndpointRow> {
    const endpoint = isUuid(endpointId) ? await findEndpoint(fastify.db, shopId, endpointId) : undefined
    if (!endpoint) throw endpointNotFound()
    return endpoint
  }

  return {
    async create (shopId: string, body: EndpointCreateBody) {
      const { url, eventTypes: kinds = [], description = '' } = body
      const created = await createEndpoint(fastify.db, shopId, {
        url: acceptedUrl(url),
        eventTypes: canonicalEventTypes(kinds),
        description
      })
      if (!created) {
        throw validationError(`A shop has at most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints; delete one first.`)
      }
      return { endpoint: endpointView(created.endpoint), secret: created.secret }
    },

    async list (shopId: string) {
      return (await listEndpoints(fastify.db, shopId)).map(endpointView)
    },

    async get (shopId: string, endpointId: string) {
      return endpointView(await ownEndpoint(shopId, endpointId))
    },

    async update (shopId: string, endpointId: string, body: EndpointPatchBody) {
      const { url, eventTypes: kinds, description, enabled } = body
      const changes: EndpointChanges = {
        ...(url === undefined ? {} : { url: acceptedUrl(url) }),
        ...(kinds === undefined ? {} : { eventTypes: canonicalEventTypes(kinds) }),
        ...(description === undefined ? {} : { description }),
        ...(enabled === undefined ? {} : { enabled })
      }
      if (!isUuid(endpointId)) throw endpointNotFound()
      const endpoint =
        Object.keys(changes).length === 0
          ? await findEndpoint(fastify.db, shopId, endpointId)
          : await updateEndpoint(fastify.db, shopId, endpointId, changes)
      if (!endpoint) throw endpointNotFound()
      return endpointView(endpoint)
    },

    async remove (shopId: string, endpointId: string) {
      const endpoint = isUuid(endpointId) ? await deleteEndpoint(fastify.db, shopId, endpointId) : undefined
      if (!endpoint) throw endpointNotFound()
      return endpointView(endpoint)
    },

    async rotateSecret (shopId: string, endpointId: string) {
      const rotated = isUuid(endpointId) ? await rotateEndpointSecret(fastify.db, shopId, endpointId) : undefined
      if (!rotated) throw endpointNotFound()
      return { endpoint: endpointView(rotated.endpoint), secret: rotated.secret }
    },

    async sendTest (shopId: string, endpointId: string) {
      const send = isUuid(endpointId) ? await createTestSend(fastify.db, shopId, endpointId) : undefined
      if (!send) throw endpointNotFound()
      fastify.webhookWorker.wake()
      return sendView(send)
    },

    async sends (shopId: string, endpointId: string, query: SendListQuery) {
      const { status, limit, after } = query
      const cursor = after === undefined ? undefined : decodeSendCursor(after)
      if (cursor === null) {
        throw validationError('Invalid request: query.after is not a nextCursor of this list.', [
          { path: 'query.after', message: 'is not a nextCursor of this list' }
        ])
      }
      await ownEndpoint(shopId, endpointId)
      const page = await listSends(fastify.db, shopId, endpointId, { status, limit, after: cursor })
      const last = page.rows.at(-1)
      return {
        deliveries: page.rows.map(sendView),
        nextCursor: page.more && last ? encodeSendCursor(last) : null
      }
    },

    async retry (shopId: string, endpointId: string, deliveryId: string) {
      if (!isUuid(endpointId) || !isUuid(deliveryId)) throw sendNotFound()
      const send = await retrySend(fastify.db, shopId, endpointId, deliveryId)
      if (!send) throw sendNotFound()
      fastify.webhookWorker.wake()
      return sendView(send)
    },

    /** Retries every failed send of the endpoint, each as `retry` does; returns how many. */
    async retryFailed (shopId: string, endpointId: string) {
      const retried = isUuid(endpointId) ? await retryFailedSends(fastify.db, shopId, endpointId) : undefined
      if (retried === undefined) throw endpointNotFound()
      if (retried > 0) fastify.webhookWorker.wake()
      return { retried }
    }
  }
}

export { MAX_ENDPOINTS_PER_SHOP } from '../../db/webhooks/endpoints.js'
