// One webhook delivery's page (docs/portal.md "Webhooks"): the request (the event,
// its id, when it was made, the attempts so far) and each attempt with the
// receiver's answer (status, the first 1 KB of its body, the error). Reads only:
// the retries are on the endpoint's page (webhooks.ts).
import type { FastifyInstance } from 'fastify'
import { webhookSendAttempts } from '../../services/webhooks/health.js'
import { getWebhookEndpoint } from '../../services/webhooks/service.js'

type Params = { id: string, deliveryId: string }

export default async function webhookAttemptsPage (fastify: FastifyInstance) {
  fastify.get<{ Params: Params }>('/:id/deliveries/:deliveryId', async function attempts (request, reply) {
    const { shopId } = request.portalSession!
    const endpoint = await getWebhookEndpoint(fastify, shopId, request.params.id)
    const send = await webhookSendAttempts(fastify, shopId, endpoint.id, request.params.deliveryId)
    return reply.portalPage('webhook-attempts', {
      section: 'webhooks',
      title: 'hooks.attemptTitle',
      titleParams: { event: send.eventType },
      endpoint,
      send
    })
  })
}
