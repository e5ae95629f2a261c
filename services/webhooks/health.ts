// What the seller's portal shows of an endpoint's health and of one send's
// attempts (docs/portal.md "Webhooks"): reads only, each scoped to the shop, with
// the API's not-found errors (services/webhooks/service.ts).
import type { FastifyInstance } from 'fastify'
import { endpointHealth, endpointsHealth, findSendAttempts, sendFailures } from '../../db/webhooks/health.js'
import { isUuid } from '../../domain/ids.js'
import { endpointNotFound, sendNotFound } from './service.js'

export type {
  EndpointHealthDetail, EndpointHealthRow, LoggedAttempt, SendAttemptsRow
} from '../../db/webhooks/health.js'

type HealthApp = Pick<FastifyInstance, 'db'>

/** The shop's event endpoints' health, by endpoint id. */
export async function webhookEndpointsHealth (app: HealthApp, shopId: string) {
  const rows = await endpointsHealth(app.db, shopId)
  return new Map(rows.map((row) => [row.id, row]))
}

/** One endpoint's health; 404 when it is not the shop's. */
export async function webhookEndpointHealth (app: HealthApp, shopId: string, endpointId: string) {
  const health = isUuid(endpointId) ? await endpointHealth(app.db, shopId, endpointId) : undefined
  if (!health) throw endpointNotFound()
  return health
}

/** One send of the endpoint with its attempts; 404 when it is not the shop's. */
export async function webhookSendAttempts (app: HealthApp, shopId: string, endpointId: string, deliveryId: string) {
  const send = isUuid(endpointId) && isUuid(deliveryId)
    ? await findSendAttempts(app.db, shopId, endpointId, deliveryId)
    : undefined
  if (!send) throw sendNotFound()
  return send
}

/** Why the listed sends of the endpoint last failed, as kinds, by send id, for the portal's words. */
export const webhookSendFailures = (app: HealthApp, shopId: string, endpointId: string, ids: readonly string[]) =>
  sendFailures(app.db, shopId, endpointId, ids)
