// Liveness and readiness for load balancers and orchestrators.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Envelope, ErrorBody } from '../schemas/common.js'

const Status = Envelope(Type.Object({ status: Type.String() }))

const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/healthz', {
    schema: { tags: ['service'], summary: 'The process is up', response: { 200: Status } }
  }, async function healthz () {
    return { success: true as const, data: { status: 'ok' } }
  })

  fastify.get('/readyz', {
    schema: { tags: ['service'], summary: 'The database (and Redis, when configured) answer', response: { 200: Status, 503: Type.Ref(ErrorBody) } }
  }, async function readyz (_request, reply) {
    const checks: Array<Promise<unknown>> = [fastify.database.ping()]
    if (fastify.redis) checks.push(fastify.redis.ping())
    try {
      await Promise.all(checks)
    } catch {
      return reply.code(503).send({ success: false as const, error: { code: 'SERVICE_UNAVAILABLE', message: 'A dependency is not reachable.' } })
    }
    return { success: true as const, data: { status: 'ready' } }
  })
}

export default healthRoutes
