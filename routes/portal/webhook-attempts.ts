// One webhook delivery's page (docs/portal.md "Webhooks"): the request (the event,
// its id, when it was made, the attempts so far) and each attempt with the
// receiver's answer (status, the first 1 KB of its body, the error). Reads only:
// the retries are on the endpoint's page (webhooks.ts).
import type { FastifyInstance } from 'fastify'
import { webhookHealthService } from '../../services/webhooks/health.js'
import { webhookEndpointService } from '../../services/webhooks/service.js'

type Params = { id: string, deliveryId: string }

export default async function webhookAttemptsPage (fastify: FastifyInstance) {
  const endpoints = webhookEndpointService(fastify)
  const health = webhookHealthService(fastify)

  fastify.get<{ Params: Params }>('/:id/deliveries/:deliveryId', async function attempts (request, reply) {
    const { shopId } = request.portalSession!
    const endpoint = await endpoints.get(shopId, request.params.id)
    const send = await health.send(shopId, endpoint.id, request.params.deliveryId)
    return reply.portalPage('webhook-attempts', {
      section: 'webhooks',
      title: 'hooks.attemptTitle',
      titleParams: { event: send.eventType },
      endpoint,
      send
    })
  })
}
