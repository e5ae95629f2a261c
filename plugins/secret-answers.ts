// Answers that show a secret once (schemas/common.ts SecretString: a signing secret,
// an API key, a portal link) are sent with `Cache-Control: no-store`, so neither a
// shared cache nor a browser's disk keeps them. Which routes: those whose response
// schema holds an `x-secret` property, found when each route is added.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'

type Schema = Record<string, unknown>

/** Whether `schema` (its `$ref`s looked up in `schemas`) holds a property marked `x-secret`. */
function holdsSecret (schema: unknown, schemas: Record<string, unknown>, seen = new Set<unknown>()): boolean {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return false
  seen.add(schema)
  const node = schema as Schema
  if (node['x-secret'] === true) return true
  if (typeof node.$ref === 'string') return holdsSecret(schemas[node.$ref.replace(/#$/, '')], schemas, seen)
  return Object.values(node).some((child) => holdsSecret(child, schemas, seen))
}

async function noStore (_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('cache-control', 'no-store')
  return payload
}

async function secretAnswersPlugin (fastify: FastifyInstance) {
  fastify.addHook('onRoute', function markSecretAnswers (route: RouteOptions) {
    if (!holdsSecret(route.schema?.response, fastify.getSchemas())) return
    const hooks = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]
    route.onSend = [...hooks, noStore]
  })
}

export default fp(secretAnswersPlugin, { name: 'secret-answers', fastify: '5.x' })
