// Liveness and readiness for load balancers and orchestrators. Both answer even
// while the instance sheds load. Readiness runs a list of named checks, each
// bounded in time, plus the load-shedding state; a 503 names everything that failed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorBody } from '../plugins/errors.js'
import { Envelope, ErrorBody } from '../schemas/common.js'

const Status = Envelope(Type.Object({ status: Type.String() }))

/** A dependency the instance needs to serve: `check` rejects when it cannot. */
export interface ReadinessCheck { name: string, check: () => Promise<unknown> }

/** How long one check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 1000

function withinTimeout (check: () => Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise((_resolve,
    reject) => { timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS) })
  return Promise.race([check(), expired]).finally(() => clearTimeout(timer))
}

const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const checks: ReadinessCheck[] = [{ name: 'database', check: () => fastify.dbConnection.ping() }]
  const { redis } = fastify
  if (redis) checks.push({ name: 'redis', check: () => redis.ping() })

  fastify.get('/healthz', {
    config: { shedUnderPressure: false },
    schema: {
      operationId: 'getHealth',
      tags: ['service'],
      summary: 'The process is up',
      description: 'Liveness: answers 200 while the process runs, without touching any dependency.',
      response: { 200: Status }
    }
  }, async function healthz () {
    return { success: true as const, data: { status: 'ok' } }
  })

  fastify.get('/readyz', {
    config: { shedUnderPressure: false },
    schema: {
      operationId: 'getReadiness',
      tags: ['service'],
      summary: 'The database (and Redis, when configured) answer and the instance is neither overloaded nor ' +
        'shutting down',
      description: `Each dependency must answer within ${CHECK_TIMEOUT_MS} ms. A 503 SERVICE_UNAVAILABLE ` +
        'names what failed in its message and in `details` (`path`: `database`, `redis` or ' +
        '`pressure`, with the limit that is exceeded; `shutdown` at once while the instance drains before it stops).',
      response: { 200: Status, 503: Type.Ref(ErrorBody) }
    }
  }, async function readyz (_request, reply) {
    // Draining before a shutdown (plugins/drain.ts): the balancer must stop sending requests here.
    if (fastify.drain.draining) {
      return reply.code(503).header('retry-after',
        '5').send(errorBody('SERVICE_UNAVAILABLE', 'Not ready: shutting down.',
        [{ path: 'shutdown', message: 'this instance is draining before it stops' }]))
    }
    const results = await Promise.allSettled(checks.map(({ check }) => withinTimeout(check)))
    const details = checks.filter((_check,
      i) => results[i].status === 'rejected').map(({ name }) => ({ path: name, message: 'is not reachable' }))
    const problems = details.map(({ path }) => `${path} not reachable`)
    const pressure = fastify.pressure()
    if (pressure) {
      details.push({ path: 'pressure', message: `is over its limit: ${pressure}` })
      problems.push(`pressure (${pressure})`)
    }
    if (details.length > 0) {
      return reply.code(503).header('retry-after',
        '5').send(errorBody('SERVICE_UNAVAILABLE', `Not ready: ${problems.join('; ')}.`, details))
    }
    return { success: true as const, data: { status: 'ready' } }
  })
}

export default healthRoutes
