// The OpenAPI 3.1 documents, generated from the TypeBox route schemas: the seller
// API (`/v1`, the public media files and health) at /docs/json (and /docs/yaml)
// with a browsable page at /docs; the operator API (`/internal/v1`) as its own
// document, `fastify.internalSwagger()`, served behind the internal token by
// routes/internal. lib/openapi-document.ts makes them exact.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifySchema } from 'fastify'
import fp from 'fastify-plugin'
import { ErrorBody } from '../schemas/common.js'
import { eventSchemas } from '../schemas/events.js'
import { publishDocument, type Document } from '../lib/openapi-document.js'

const TITLE = 'Shop Seller Automation API'
/** The header of /docs: the service's name where Swagger UI shows its own logo. */
const HEADER_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="420" height="40" viewBox="0 0 420 ' +
  '40"><text x="0" y="28" font-family="sans-serif" font-size="22" font-weight="700" ' +
  `fill="#ffffff">${TITLE}</text></svg>`
const PAGE_CSS = [
  '.swagger-ui .topbar { background-color: #1f3a5f; }',
  '.swagger-ui .topbar .download-url-wrapper { display: none; }',
  '.swagger-ui .topbar-wrapper img { height: 40px; }'
].join('\n')

async function openapiPlugin (fastify: FastifyInstance) {
  const { config } = fastify
  // Named schemas shared by routes (components of the document).
  for (const schema of [ErrorBody, ...eventSchemas]) fastify.addSchema(schema)
  const info = {
    version: '1.0.0',
    license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    contact: { name: 'Shop Seller Automation API' }
  }
  // Relative: tools resolve it against where they read the document (/docs tries calls on
  // its own host), and a generated client is given its deployment's address instead of
  // baking in one instance's (docs/api-document.md).
  const servers = [{
    url: '/',
    description: 'The deployment that serves this document: give your client its base URL (e.g. ' +
      'https://seller-api.example.com).'
  }]
  const refResolver = {
    buildLocalReference: (json: { $id?: unknown }, _baseUri: unknown, _fragment: unknown,
      i: number) => String(json.$id ?? `def-${i}`)
  }
  const generated = (document: unknown) =>
    ('openapiObject' in (document as object) ? (document as { openapiObject: Document }).openapiObject : {}) as Document
  const publish = (options: { webhooks?: boolean }) => (document: unknown) => publishDocument(generated(document),
    options)
  const isOperatorRoute = (url: string) => url.startsWith('/internal/')
  // One document per audience: each hides the other's routes; the seller portal's pages are in neither.
  const only = (operator: boolean) => ({ schema, url }: { schema: FastifySchema, url: string }) => ({
    schema: isOperatorRoute(url) === operator && !url.startsWith('/portal') ? schema : { ...schema, hide: true },
    url
  })

  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        ...info,
        title: TITLE,
        description: [
          'Automate one shop\'s catalog and order fulfilment. Authenticate with `Authorization: Bearer <API ' +
            'key>` (or `X-API-Key`).',
          'Every response is an envelope: `{success: true, data}` or `{success: false, error: {code, message, ' +
            'details?}}`, and carries `X-Request-Id`. Each operation lists the error codes it can answer ' +
            'with, per status.',
          `Rate limit: per key, ${config.RATE_LIMIT_MAX} requests per ${config.RATE_LIMIT_WINDOW_MS / 1000} ` +
            's; responses carry `RateLimit-*` headers, a 429 also `Retry-After`.',
          'Take, deliver, cancel, product creation and posting a message accept an `Idempotency-Key` header ' +
            `(remembered ${config.IDEMPOTENCY_TTL_S} s, scoped to the shop).`,
          'Instead of polling the order list, follow `GET /v1/events`: every event of the shop (order ' +
            'changes, chat messages, stock signals, failed deliveries from its delivery endpoint) once, in ' +
            `commit order, long-polled (events are kept ${config.EVENT_RETENTION_DAYS} days); or receive the ` +
            'same events as signed webhooks (the `webhooks` section).',
          'Both auth schemes name the same key: send one. A client that sends both is harmless, since ' +
            '`Authorization` wins.'
        ].join('\n\n')
      },
      servers,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'The shop API key: `service_sk_` + 40 characters.'
          },
          apiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'The shop API key, in a header of its own.'
          }
        }
      },
      tags: [
        { name: 'products', description: 'The shop\'s catalog' },
        { name: 'catalog', description: 'Categories, currency rates and images' },
        { name: 'stock', description: 'Codes the service keeps and delivers the moment an order is paid' },
        { name: 'orders', description: 'Fulfilment: list, take, deliver, cancel' },
        {
          name: 'claims',
          description: 'A buyer reports delivered values that do not work: replace, refund or ' +
          'reject before the deadline'
        },
        { name: 'messages', description: 'The order chat' },
        {
          name: 'events',
          description: 'The shop\'s feed: every event (orders, chat, stock, delivery failures) once, in ' +
            'commit order, long-polled'
        },
        {
          name: 'webhooks',
          description: 'Signed pushes of the feed\'s events to your HTTPS endpoint (Standard Webhooks); the ' +
            'requests themselves are in the `webhooks` section'
        },
        { name: 'stats', description: 'Sales statistics from the orders and the ledger' },
        {
          name: 'chat-rules',
          description: 'Messages the service posts in the orders\' chats by itself: after each step, on ' +
            'keywords, as reminders'
        },
        {
          name: 'delivery',
          description: 'Just-in-time delivery: the service asks your endpoint for the goods ' +
          'of each purchase and delivers them'
        },
        { name: 'service', description: 'Health and public files' }
      ]
    },
    transform: only(false),
    transformObject: publish({ webhooks: true }),
    refResolver
  })
  await fastify.register(swagger, {
    decorator: 'internalSwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        ...info,
        title: `${TITLE}: operator API`,
        description: 'The `/internal/v1` API of the marketplace back office: shops, API keys, currency rates, ' +
          'categories, the ledger, and acting as the buyer. Authenticated with the operator token ' +
          '(`INTERNAL_TOKEN`); without one configured it does not exist.'
      },
      servers,
      components: {
        securitySchemes: {
          internalToken: { type: 'http', scheme: 'bearer', description: 'The operator token (INTERNAL_TOKEN).' }
        }
      },
      tags: [{ name: 'internal', description: 'Operator API' }]
    },
    transform: only(true),
    transformObject: publish({}),
    refResolver
  })
  await fastify.register(swaggerUi, {
    routePrefix: '/docs',
    // A page of our own: its title, our name in the header instead of Swagger's logo.
    theme: { title: `${TITLE} · API reference`, css: [{ filename: 'seller-api.css', content: PAGE_CSS }] },
    logo: { type: 'image/svg+xml', content: HEADER_SVG, href: '/docs' },
    uiConfig: {
      // Operations start folded and the schemas section closed: the page opens as a list of what the API does.
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      // The key entered under Authorize survives a reload; each Try-it-out shows how long it took.
      persistAuthorization: true,
      displayRequestDuration: true
    }
  })
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The operator API's OpenAPI document. */
    internalSwagger: FastifyInstance['swagger']
  }
}

export default fp(openapiPlugin, { name: 'openapi', dependencies: ['config'] })
