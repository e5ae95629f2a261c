// The service as a Fastify plugin: infrastructure first, then the routes.
// server.ts and the tests register this same plugin through buildApp().
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Server } from 'node:http'
import Fastify, { type FastifyHttpOptions, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { DbConnection } from './db/core/client.js'
import type { CompileCache } from './lib/compile-cache.js'
import { seedTaxonomy } from './db/catalog/taxonomy.js'
import auth from './plugins/auth.js'
import claimDeadlines from './plugins/claim-deadlines.js'
import chatRuleReminders from './plugins/chat-rule-reminders.js'
import configPlugin, { type Config } from './plugins/config.js'
import db from './plugins/db.js'
import drain from './plugins/drain.js'
import errors, { handleClientError, handleFrameworkError } from './plugins/errors.js'
import eventRetention from './plugins/event-retention.js'
import eventWakeups from './plugins/event-wakeups.js'
import idempotencyStore from './plugins/idempotency-store.js'
import jsonBody from './plugins/json-body.js'
import loadShedding from './plugins/load-shedding.js'
import { loggerOptions } from './lib/logging.js'
import metrics from './plugins/metrics.js'
import openapi from './plugins/openapi.js'
import redis from './plugins/redis.js'
import requestId, { requestIdFrom } from './plugins/request-id.js'
import secretAnswers from './plugins/secret-answers.js'
import stockCipher from './plugins/stock-encryption.js'
import validation from './plugins/validation.js'
import webhookWorker from './plugins/webhook-worker.js'
import health from './routes/health.js'
import operatorApi from './routes/internal/index.js'
import mediaFiles from './routes/media-files.js'
import portal from './routes/portal/index.js'
import sellerApi from './routes/v1/index.js'
import { DEFAULT_BODY_LIMIT } from './schemas/body-limits.js'

export interface AppOptions {
  config: Config
  /** Use this open database instead of opening one from the config (left open on close). */
  dbConnection?: DbConnection
  /** Reuse the validators and serializers this cache compiled for an earlier app of the process (the tests). */
  compileCache?: CompileCache
}

export async function app (fastify: FastifyInstance, options: AppOptions) {
  await fastify.register(configPlugin, { config: options.config })
  await fastify.register(errors)
  await fastify.register(requestId)
  await fastify.register(validation, { compileCache: options.compileCache })
  await fastify.register(jsonBody)
  await fastify.register(db, { dbConnection: options.dbConnection })
  await fastify.register(redis)
  await fastify.register(metrics)
  await fastify.register(loadShedding)
  await fastify.register(auth)
  await fastify.register(idempotencyStore)
  await fastify.register(stockCipher)
  await fastify.register(eventWakeups)
  await fastify.register(drain)
  await fastify.register(eventRetention)
  await fastify.register(openapi)
  await fastify.register(secretAnswers)
  await fastify.register(webhookWorker)
  await fastify.register(claimDeadlines)
  await fastify.register(chatRuleReminders)
  await seedTaxonomy(fastify.db)

  await fastify.register(health)
  await fastify.register(mediaFiles, { prefix: '/media' })
  await fastify.register(sellerApi, { prefix: '/v1' })
  await fastify.register(operatorApi, { prefix: '/internal/v1' })
  await fastify.register(portal, { prefix: '/portal' })
}

/** Fastify's own options: logging (secrets redacted, lib/logging.ts), request ids, proxies, limits. */
export function serverOptions (config: Config): FastifyHttpOptions<Server> {
  return {
    // No secret, body or query parameter in any line (lib/logging.ts).
    logger: loggerOptions(config.LOG_LEVEL,
      { internalToken: config.INTERNAL_TOKEN, databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL }),
    genReqId: requestIdFrom,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    requestIdHeader: false,
    // A number (hop count) is valid for proxy-addr though Fastify's types omit it.
    trustProxy: config.TRUST_PROXY as FastifyServerOptions['trustProxy'],
    // Kilobytes for most bodies; the routes that need more say so (schemas/body-limits.ts).
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Slow or silent clients are cut (408 in the envelope, then the socket is
    // closed): the headers must arrive within HEADERS_TIMEOUT_MS and the whole
    // request within REQUEST_TIMEOUT_MS, checked every second; an idle
    // keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    http: { headersTimeout: config.HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    // Last resort: a socket with no traffic either way for two minutes (longer
    // than any wait a request may legitimately hold) is destroyed.
    connectionTimeout: 120_000,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // The embedded database's first start (migrations, seeding) can be slow on a busy machine.
    pluginTimeout: 120_000,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 }
  }
}

export async function buildApp (options: AppOptions, overrides: FastifyServerOptions = {}) {
  const cache = options.compileCache
  const fastify = Fastify({
    ...serverOptions(options.config),
    ...(cache && { schemaController: { compilersFactory: { buildSerializer: cache.buildSerializer } } }),
    ...overrides
  }).withTypeProvider<TypeBoxTypeProvider>()
  await fastify.register(fp(app), options)
  await fastify.ready()
  return fastify
}
