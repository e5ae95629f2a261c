// The Needs attention page (docs/portal.md), where a session lands: what needs the
// seller, counted now (db/portal/attention.ts), each count linking to its list.
import type { FastifyInstance } from 'fastify'
import { attentionCounts } from '../../services/portal/service.js'

export default async function attentionPage (fastify: FastifyInstance) {
  fastify.get('/', async function needsAttention (request, reply) {
    const counts = await attentionCounts(fastify.db, request.portalSession!.shopId)
    return reply.portalPage('attention', { section: 'attention', title: 'attention.title', counts })
  })
}
