// The service as a Fastify plugin: infrastructure first, then the routes.
// server.ts and the tests register this same plugin through buildApp().
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from './db/client.js'
import { seedTaxonomy } from './db/taxonomy.js'
import auth from './plugins/auth.js'
import configPlugin, { type Config } from './plugins/config.js'
import db from './plugins/db.js'
import errors, { handleFrameworkError } from './plugins/errors.js'
import idempotencyStore from './plugins/idempotency-store.js'
import jsonBody from './plugins/json-body.js'
import openapi from './plugins/openapi.js'
import redis from './plugins/redis.js'
import requestId, { requestIdFrom } from './plugins/request-id.js'
import validation from './plugins/validation.js'
import webhookWorker from './plugins/webhook-worker.js'
import health from './routes/health.js'
import operatorApi from './routes/internal/index.js'
import mediaFiles from './routes/media-files.js'
import sellerApi from './routes/v1/index.js'

export interface AppOptions {
  config: Config
  /** Use this open database instead of opening one from the config (left open on close). */
  database?: Database
}

export async function app (fastify: FastifyInstance, options: AppOptions) {
  await fastify.register(configPlugin, { config: options.config })
  await fastify.register(errors)
  await fastify.register(requestId)
  await fastify.register(validation)
  await fastify.register(jsonBody)
  await fastify.register(db, { database: options.database })
  await fastify.register(redis)
  await fastify.register(auth)
  await fastify.register(idempotencyStore)
  await fastify.register(openapi)
  await fastify.register(webhookWorker)
  await seedTaxonomy(fastify.db)

  await fastify.register(health)
  await fastify.register(mediaFiles, { prefix: '/media' })
  await fastify.register(sellerApi, { prefix: '/v1' })
  await fastify.register(operatorApi, { prefix: '/internal/v1' })
}

/** Fastify's own options: logging (secrets redacted), request ids, proxies, limits. */
export function serverOptions (config: Config): FastifyServerOptions {
  return {
    logger: {
      level: config.LOG_LEVEL,
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'secret', 'token'], censor: '[redacted]' }
    },
    genReqId: requestIdFrom,
    frameworkErrors: handleFrameworkError,
    requestIdHeader: false,
    // A number (hop count) is valid for proxy-addr though Fastify's types omit it.
    trustProxy: config.TRUST_PROXY as FastifyServerOptions['trustProxy'],
    // Room for the largest bodies the rules allow (100 delivered values of 10 000
    // characters, 50 fields × 100 options), with JSON escaping.
    bodyLimit: 8 * 1024 * 1024,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // The embedded database's first start (migrations, seeding) can be slow on a busy machine.
    pluginTimeout: 120_000,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 }
  }
}

export async function buildApp (options: AppOptions, overrides: FastifyServerOptions = {}) {
  const fastify = Fastify({ ...serverOptions(options.config), ...overrides }).withTypeProvider<TypeBoxTypeProvider>()
  await fastify.register(fp(app), options)
  await fastify.ready()
  return fastify
}
