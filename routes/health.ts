// Liveness and readiness for load balancers and orchestrators. Both answer even
// while the instance sheds load: /healthz says the process is up, /readyz that
// it should get traffic, and names what is wrong when it should not.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Envelope, ErrorBody } from '../schemas/common.js'

const Status = Envelope(Type.Object({ status: Type.String() }))

const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/healthz', {
    config: { shedUnderPressure: false },
    schema: { tags: ['service'], summary: 'The process is up', response: { 200: Status } }
  }, async function healthz () {
    return { success: true as const, data: { status: 'ok' } }
  })

  fastify.get('/readyz', {
    config: { shedUnderPressure: false },
    schema: {
      tags: ['service'],
      summary: 'The database (and Redis, when configured) answer and the instance is not overloaded',
      description: 'A 503 names what failed: database, redis, pressure (with the limit that is exceeded).',
      response: { 200: Status, 503: Type.Ref(ErrorBody) }
    }
  }, async function readyz (_request, reply) {
    const checks: Array<[string, Promise<unknown>]> = [['database', fastify.database.ping()]]
    if (fastify.redis) checks.push(['redis', fastify.redis.ping()])
    const results = await Promise.allSettled(checks.map(([, check]) => check))
    const failed = checks.filter((_, i) => results[i].status === 'rejected').map(([name]) => name)
    const pressure = fastify.pressure()
    if (pressure) failed.push(`pressure (${pressure})`)
    if (failed.length > 0) {
      return reply.code(503).header('retry-after', '5').send({ success: false as const, error: { code: 'SERVICE_UNAVAILABLE', message: `Not ready: ${failed.join('; ')}.` } })
    }
    return { success: true as const, data: { status: 'ready' } }
  })
}

export default healthRoutes
