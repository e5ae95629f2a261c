// The shop's delivery endpoint (docs/delivery-endpoint.md), for the
// /v1/delivery-endpoint calls and the portal's page alike: the URL rules, the
// not-found errors, the view, the deletion (its pending requests end `failed`,
// each with order.delivery_failed, in its transaction), and the test call (a real signed
// request for a sample order through the webhook worker's sender, judged without
// storing anything or showing the values).
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import {
  deliveryEndpointTarget,
  findDeliveryEndpoint,
  lockDeliveryEndpoint,
  putDeliveryEndpoint,
  removeEndpointRow,
  rotateDeliverySecret,
  sampleOrder
} from '../../db/delivery-endpoint/endpoint.js'
import { failPendingRequests } from '../../db/delivery-endpoint/requests.js'
import { appendDeliveryFailedEvents } from '../../db/orders/fulfilment.js'
import { failureText } from '../../domain/attempt-failures.js'
import { judgeAnswer, type AnswerProblem } from '../../domain/delivery-answer.js'
import { DELIVERY_REQUEST_TYPE } from '../../domain/event-types.js'
import { checkWebhookUrl } from '../../domain/webhook-url.js'
import { ApiError, notFound, validationError } from '../../domain/errors.js'
import type {
  DeliveryEndpointBody,
  DeliveryEndpointSchema,
  DeliveryTestBody,
  DeliveryTestResult
} from '../../schemas/delivery-endpoint.js'
import { webhookBody } from '../webhooks/body.js'

export type DeliveryEndpointView = Static<typeof DeliveryEndpointSchema>
export type DeliveryTestView = Static<typeof DeliveryTestResult>

export const deliveryEndpointNotFound = () =>
  new ApiError('NOT_FOUND', 'No delivery endpoint is registered: PUT /v1/delivery-endpoint first.')

/** The endpoint as the API returns it (DeliveryEndpointSchema). */
function deliveryEndpointView (row: { url: string; createdAt: Date; updatedAt: Date }): DeliveryEndpointView {
  return { url: row.url, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() }
}

type DeliveryEndpointApp = Pick<FastifyInstance, 'db' | 'config' | 'webhookWorker'>

/** The shop's endpoint, or undefined when none is registered. */
export async function findShopDeliveryEndpoint (app: Pick<FastifyInstance, 'db'>, shopId: string) {
  const endpoint = await findDeliveryEndpoint(app.db, shopId)
  return endpoint ? deliveryEndpointView(endpoint) : undefined
}

/** Registers or replaces the shop's endpoint; its secret is shown when a new one was made. */
export async function putShopDeliveryEndpoint (
  app: Pick<FastifyInstance, 'db' | 'config'>, shopId: string, body: Static<typeof DeliveryEndpointBody>
) {
  const { config } = app
  const check = checkWebhookUrl(body.url, {
    allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE
  })
  if (!check.ok) {
    throw validationError(`Invalid request: body.url ${check.problem}.`, [
      { path: 'body.url', message: check.problem, rule: check.rule }
    ])
  }
  const { endpoint, secret } = await putDeliveryEndpoint(app.db, shopId, check.url)
  return { deliveryEndpoint: deliveryEndpointView(endpoint), ...(secret === null ? {} : { secret }) }
}

/** Deletes the endpoint; its pending requests end `failed`, each with order.delivery_failed. */
export async function deleteShopDeliveryEndpoint (app: Pick<FastifyInstance, 'db'>, shopId: string) {
  const endpoint = await app.db.transaction(async (tx) => {
    const locked = await lockDeliveryEndpoint(tx, shopId)
    if (!locked) return undefined
    const orderIds = await failPendingRequests(tx, locked.id, { kind: 'deliveryEndpointDeleted' })
    await appendDeliveryFailedEvents(tx, shopId, orderIds, failureText({ kind: 'deliveryEndpointDeleted' }))
    await removeEndpointRow(tx, locked.id)
    return locked
  })
  if (!endpoint) throw deliveryEndpointNotFound()
  return deliveryEndpointView(endpoint)
}

export async function rotateShopDeliverySecret (app: Pick<FastifyInstance, 'db'>, shopId: string) {
  const rotated = await rotateDeliverySecret(app.db, shopId)
  if (!rotated) throw deliveryEndpointNotFound()
  return { deliveryEndpoint: deliveryEndpointView(rotated.endpoint), secret: rotated.secret }
}

/**
 * A real signed request for a sample order, judged without storing anything.
 * `callerGone` fires when the caller went away (no wait for an answer nobody reads): lib/client-gone.ts.
 */
export async function testShopDeliveryEndpoint (
  app: DeliveryEndpointApp, shopId: string, body: Static<typeof DeliveryTestBody>, callerGone: AbortSignal
): Promise<DeliveryTestView & { findings: AnswerProblem[] }> {
  const { config } = app
  const target = await deliveryEndpointTarget(app.db, shopId)
  if (!target) throw deliveryEndpointNotFound()
  const order = await sampleOrder(app.db, shopId, body.productId, body.quantity ?? 1)
  if (!order) throw notFound('Product')
  const sent = await app.webhookWorker.sender.send({
    url: target.url,
    webhookId: randomUUID(),
    body: webhookBody(DELIVERY_REQUEST_TYPE, new Date().toISOString(), { order, test: true }),
    secrets: target.secrets,
    // The answer's own timeout is DELIVERY_TIMEOUT_MS (`answer`); this one bounds the rest.
    signal: AbortSignal.any([callerGone, AbortSignal.timeout(config.DELIVERY_TIMEOUT_MS + 1000)]),
    answer: { timeoutMs: config.DELIVERY_TIMEOUT_MS }
  })
  const judged = judgeAnswer(sent)
  return {
    ok: judged.ok,
    statusCode: sent.statusCode,
    durationMs: sent.durationMs,
    valuesCount: judged.ok ? judged.values.length : judged.valuesCount,
    problems: judged.problems,
    findings: judged.findings
  }
}

export {
  findDeliveryRequest, listRecentDeliveryRequests, retryDeliveryRequest
} from '../../db/delivery-endpoint/requests.js'
