// The OpenAPI 3 document, generated from the TypeBox route schemas, served at
// /docs/json (and /docs/yaml) with a browsable page at /docs.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ErrorBody } from '../schemas/common.js'
import { eventSchemas } from '../schemas/events.js'

type Operation = {
  parameters?: Array<{ in: string, required?: boolean, schema?: { default?: unknown } }>
  requestBody?: { required?: boolean, content?: Record<string, { schema?: { nullable?: boolean } }> }
}

/**
 * What @fastify/swagger cannot know from the schemas alone: a query parameter with
 * a default need not be sent, and a body declared nullable may be left out.
 */
function markOptionalInputs (document: { paths?: Record<string, Record<string, Operation>> }) {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false
      }
      const body = operation.requestBody
      if (body && Object.values(body.content ?? {}).every((media) => media.schema?.nullable)) body.required = false
    }
  }
  return document
}

async function openapiPlugin (fastify: FastifyInstance) {
  const { config } = fastify
  // Named schemas shared by routes (components of the document).
  for (const schema of [ErrorBody, ...eventSchemas]) fastify.addSchema(schema)
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Shop Seller Automation API',
        version: '1.0.0',
        description: [
          'Automate one shop\'s catalog and order fulfilment. Authenticate with `Authorization: Bearer <API key>` (or `X-API-Key`).',
          'Every response is an envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`, and carries `X-Request-Id`.',
          `Rate limit: per key, ${config.RATE_LIMIT_MAX} requests per ${config.RATE_LIMIT_WINDOW_MS / 1000} s; responses carry \`RateLimit-*\` headers, a 429 also \`Retry-After\`.`,
          `Take, deliver, cancel, product creation and posting a message accept an \`Idempotency-Key\` header (remembered ${config.IDEMPOTENCY_TTL_S} s, scoped to the shop).`,
          `Instead of polling the order list, follow \`GET /v1/events\`: every order change and chat message once, in commit order, long-polled (events are kept ${config.EVENT_RETENTION_DAYS} days).`,
          'The `/internal/v1` operator API is for the marketplace back office and is authenticated with the internal token.'
        ].join('\n\n')
      },
      servers: [{ url: config.PUBLIC_BASE_URL }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'The shop API key: `service_sk_` + 40 characters.' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          internalToken: { type: 'http', scheme: 'bearer', description: 'The operator token (INTERNAL_TOKEN).' }
        }
      },
      tags: [
        { name: 'products', description: 'The shop\'s catalog' },
        { name: 'catalog', description: 'Categories, currency rates and images' },
        { name: 'orders', description: 'Fulfilment: list, take, deliver, cancel' },
        { name: 'messages', description: 'The order chat' },
        { name: 'events', description: 'The shop\'s order feed: every change once, in commit order, long-polled' },
        { name: 'webhooks', description: 'Signed pushes of the order events to your HTTPS endpoint (Standard Webhooks)' },
        { name: 'internal', description: 'Operator API (not part of the public API)' },
        { name: 'service', description: 'Health and public files' }
      ]
    },
    transformObject: (document) => markOptionalInputs(('openapiObject' in document ? document.openapiObject : {}) as Parameters<typeof markOptionalInputs>[0]),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) }
  })
  await fastify.register(swaggerUi, { routePrefix: '/docs' })
}

export default fp(openapiPlugin, { name: 'openapi', dependencies: ['config'] })
