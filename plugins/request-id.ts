// Request ids: a caller's sane `X-Request-Id` is kept (so logs join up across
// services), anything else is replaced; every response carries the id.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

const saneRequestId = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/** Fastify's `genReqId`: reuse the incoming header when it is sane. */
export function requestIdFrom (req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && saneRequestId.test(incoming) ? incoming : randomUUID()
}

async function requestIdPlugin (fastify: FastifyInstance) {
  fastify.addHook('onRequest', async function echoRequestId (request, reply) {
    reply.header('x-request-id', request.id)
  })
}

export default fp(requestIdPlugin, { name: 'request-id' })
