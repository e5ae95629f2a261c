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
import { ApiError, ruleOf, validationError } from '../../domain/errors.js'
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

type WebhookApp = Pick<FastifyInstance, 'db' | 'config'>
type WebhookWakingApp = Pick<FastifyInstance, 'db' | 'webhookWorker'>

function acceptedUrl ({ config }: Pick<FastifyInstance, 'config'>, url: string): string {
  const rules = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }
  const check = checkWebhookUrl(url, rules)
  if (!check.ok) {
    throw validationError(`Invalid request: body.url ${check.problem}.`, [
      { path: 'body.url', message: check.problem, rule: check.rule }
    ])
  }
  return check.url
}

async function ownEndpoint (
  app: Pick<FastifyInstance, 'db'>, shopId: string, endpointId: string
): Promise<EndpointRow> {
  const endpoint = isUuid(endpointId) ? await findEndpoint(app.db, shopId, endpointId) : undefined
  if (!endpoint) throw endpointNotFound()
  return endpoint
}

/** A new endpoint of the shop, its secret shown once; 400 past MAX_ENDPOINTS_PER_SHOP. */
export async function createWebhookEndpoint (app: WebhookApp, shopId: string, body: EndpointCreateBody) {
  const { url, eventTypes: kinds = [], description = '' } = body
  const input = { url: acceptedUrl(app, url), eventTypes: canonicalEventTypes(kinds), description }
  const created = await app.db.transaction((tx) => createEndpoint(tx, shopId, input))
  if (!created) {
    throw validationError(`A shop has at most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints; delete one first.`,
      undefined, ruleOf('x-endpoint-limit', { max: MAX_ENDPOINTS_PER_SHOP }))
  }
  return { endpoint: endpointView(created.endpoint), secret: created.secret }
}

export async function listWebhookEndpoints (app: Pick<FastifyInstance, 'db'>, shopId: string) {
  return (await listEndpoints(app.db, shopId)).map(endpointView)
}

export async function getWebhookEndpoint (app: Pick<FastifyInstance, 'db'>, shopId: string, endpointId: string) {
  return endpointView(await ownEndpoint(app, shopId, endpointId))
}

/** Applies the changes sent; disabling fails the endpoint's pending sends. */
export async function updateWebhookEndpoint (
  app: WebhookApp, shopId: string, endpointId: string, body: EndpointPatchBody
) {
  const { url, eventTypes: kinds, description, enabled } = body
  const changes: EndpointChanges = {
    ...(url === undefined ? {} : { url: acceptedUrl(app, url) }),
    ...(kinds === undefined ? {} : { eventTypes: canonicalEventTypes(kinds) }),
    ...(description === undefined ? {} : { description }),
    ...(enabled === undefined ? {} : { enabled })
  }
  if (!isUuid(endpointId)) throw endpointNotFound()
  const endpoint =
    Object.keys(changes).length === 0
      ? await findEndpoint(app.db, shopId, endpointId)
      : await app.db.transaction((tx) => updateEndpoint(tx, shopId, endpointId, changes))
  if (!endpoint) throw endpointNotFound()
  return endpointView(endpoint)
}

export async function deleteWebhookEndpoint (app: Pick<FastifyInstance, 'db'>, shopId: string, endpointId: string) {
  const endpoint = isUuid(endpointId)
    ? await app.db.transaction((tx) => deleteEndpoint(tx, shopId, endpointId))
    : undefined
  if (!endpoint) throw endpointNotFound()
  return endpointView(endpoint)
}

export async function rotateWebhookSecret (app: Pick<FastifyInstance, 'db'>, shopId: string, endpointId: string) {
  const rotated = isUuid(endpointId) ? await rotateEndpointSecret(app.db, shopId, endpointId) : undefined
  if (!rotated) throw endpointNotFound()
  return { endpoint: endpointView(rotated.endpoint), secret: rotated.secret }
}

/** A `webhook.test` send to this endpoint, due now; the worker is woken for it. */
export async function sendWebhookTest (app: WebhookWakingApp, shopId: string, endpointId: string) {
  const send = isUuid(endpointId)
    ? await app.db.transaction((tx) => createTestSend(tx, shopId, endpointId))
    : undefined
  if (!send) throw endpointNotFound()
  app.webhookWorker.wake()
  return sendView(send)
}

/** One page of the endpoint's sends (the wire's deliveries), newest first. */
export async function listWebhookSends (
  app: Pick<FastifyInstance, 'db'>, shopId: string, endpointId: string, query: SendListQuery
) {
  const { status, limit, after } = query
  const cursor = after === undefined ? undefined : decodeSendCursor(after)
  if (cursor === null) {
    throw validationError('Invalid request: query.after is not a nextCursor of this list.', [
      { path: 'query.after', message: 'is not a nextCursor of this list' }
    ])
  }
  await ownEndpoint(app, shopId, endpointId)
  const page = await listSends(app.db, shopId, endpointId, { status, limit, after: cursor })
  const last = page.rows.at(-1)
  return {
    deliveries: page.rows.map(sendView),
    nextCursor: page.more && last ? encodeSendCursor(last) : null
  }
}

/** Makes a send pending and due now; the worker is woken for it. */
export async function retryWebhookSend (
  app: WebhookWakingApp, shopId: string, endpointId: string, deliveryId: string
) {
  if (!isUuid(endpointId) || !isUuid(deliveryId)) throw sendNotFound()
  const send = await retrySend(app.db, shopId, endpointId, deliveryId)
  if (!send) throw sendNotFound()
  app.webhookWorker.wake()
  return sendView(send)
}

export { MAX_ENDPOINTS_PER_SHOP } from '../../db/webhooks/endpoints.js'

/** Makes every failed send of the endpoint pending and due now, as retryWebhookSend does each; how many. */
export async function retryFailedWebhookSends (app: WebhookWakingApp, shopId: string, endpointId: string) {
  const retried = isUuid(endpointId)
    ? await app.db.transaction((tx) => retryFailedSends(tx, shopId, endpointId))
    : undefined
  if (retried === undefined) throw endpointNotFound()
  if (retried > 0) app.webhookWorker.wake()
  return { retried }
}
