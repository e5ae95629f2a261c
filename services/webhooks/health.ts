// What the seller's portal shows of an endpoint's health and of one send's
// attempts (docs/portal.md "Webhooks"): reads only, each scoped to the shop, with
// the API's not-found errors (services/webhooks/service.ts).
import type { FastifyInstance } from 'fastify'
import { endpointHealth, endpointsHealth, findSendAttempts } from '../../db/webhooks/health.js'
import { isUuid } from '../../domain/ids.js'
import { endpointNotFound, sendNotFound } from './service.js'

export type {
  EndpointHealthDetail, EndpointHealthRow, LoggedAttempt, SendAttemptsRow
} from '../../db/webhooks/health.js'

export function webhookHealthService (fastify: FastifyInstance) {
  return {
    /** The shop's event endpoints' health, by endpoint id. */
    async list (shopId: string) {
      const rows = await endpointsHealth(fastify.db, shopId)
      return new Map(rows.map((row) => [row.id, row]))
    },

    async endpoint (shopId: string, endpointId: string) {
      const health = isUuid(endpointId) ? await endpointHealth(fastify.db, shopId, endpointId) : undefined
      if (!health) throw endpointNotFound()
      return health
    },

    async send (shopId: string, endpointId: string, deliveryId: string) {
      const send = isUuid(endpointId) && isUuid(deliveryId)
        ? await findSendAttempts(fastify.db, shopId, endpointId, deliveryId)
        : undefined
      if (!send) throw sendNotFound()
      return send
    }
  }
}
