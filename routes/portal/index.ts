// The seller portal at /portal (docs/portal.md): server-rendered pages (eta
// templates through @fastify/view) made live by htmx, served by the service
// itself. The operator's link starts a session (entering.ts); every other page
// needs one (session.ts), and every change goes through the same actions as the
// API call that makes it, at most PORTAL_RATE_LIMIT_MAX a minute (change-limit.ts).
// Forms must be UTF-8 (forms.ts). Assets: assets.ts. Headers: a Content-Security-Policy without inline
// script or style, no framing unless PORTAL_FRAME_ANCESTORS names the
// marketplace, no referrer (a link's token never travels on), no caching.
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import view from '@fastify/view'
import { Eta } from 'eta'
import type { FastifyError, FastifyInstance } from 'fastify'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiError } from '../../domain/errors.js'
import { errorBody, isUnavailable } from '../../plugins/errors.js'
import activity from './activity.js'
import apiKeys from './api-keys.js'
import assets, { hashedAssets } from './assets.js'
import { PORTAL_CHANGE_WINDOW_MS, limitPortalChanges } from './change-limit.js'
import attention from './attention.js'
import chatRules from './chat-rules.js'
import claims from './claims.js'
import deliveryEndpoint from './delivery-endpoint.js'
import entering from './entering.js'
import { FieldNotUtf8, parseUtf8Form } from './forms.js'
import { translator } from './i18n/index.js'
import language from './language.js'
import orders from './orders.js'
import { decoratePortalReplies } from './render.js'
import { isPageRequest, requirePortalSession, sessionCookieName } from './session.js'
import sales from './sales.js'
import signOut, { SIGNED_OUT_PAGE } from './sign-out.js'
import stock from './stock.js'
import webhooks from './webhooks.js'
import timeZone from './time-zone.js'
import { detailSentence, errorSentence } from './i18n/api-messages.js'
import webhookAttempts from './webhook-attempts.js'

const here = dirname(fileURLToPath(import.meta.url))

/** The codes the portal answers as the JSON envelope, not as a page (docs/portal.md). */
const ENVELOPE_CODES = new Set(['SESSION_INVALID', 'CSRF_INVALID', 'READ_ONLY'])

export function contentSecurityPolicy (frameAncestors: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`
  ].join('; ')
}

export default async function portal (fastify: FastifyInstance) {
  const { config } = fastify
  const frameAncestors = (config.PORTAL_FRAME_ANCESTORS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
  const csp = contentSecurityPolicy(frameAncestors)
  const cookieName = sessionCookieName(config.PUBLIC_BASE_URL)

  const assetFiles = hashedAssets()

  await fastify.register(cookie)
  await fastify.register(formbody, { parser: parseUtf8Form })
  await fastify.register(view, {
    engine: { eta: new Eta({ cache: true }) },
    root: join(here, 'views'),
    production: true,
    defaultContext: { assets: assetFiles.urls }
  })
  await fastify.register(assets, { assets: assetFiles })
  decoratePortalReplies(fastify)

  fastify.addHook('onRequest', async function portalHeaders (request, reply) {
    reply.header('content-security-policy', csp)
    if (frameAncestors.length === 0) reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('x-content-type-options', 'nosniff')
    if (!request.url.startsWith('/portal/assets/')) reply.header('cache-control', 'no-store')
  })

  fastify.setErrorHandler(async function portalError (err: FastifyError, request, reply) {
    if (err instanceof ApiError && ENVELOPE_CODES.has(err.code)) {
      return reply.code(err.statusCode).send(errorBody(err.code, err.message))
    }
    const t = translator(request.portalSession?.locale ?? 'ru')
    if (err instanceof ApiError && err.code === 'RATE_LIMIT') {
      const seconds = Number(reply.getHeader('retry-after') ?? PORTAL_CHANGE_WINDOW_MS / 1000)
      return reply.portalPage('too-many-changes', {
        title: 'shell.tooManyTitle',
        max: config.PORTAL_RATE_LIMIT_MAX,
        seconds
      }, 429)
    }
    if (err instanceof FieldNotUtf8) {
      return reply.portalPage('problem', { title: 'errors.title', message: t('errors.notUtf8', { field: err.field }) },
        400)
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.portalPage('problem', { title: 'errors.title', message: t('errors.tooLarge') }, 413)
    }
    if ((err instanceof ApiError && err.statusCode === 404) || err.validationContext === 'params') {
      return reply.portalPage('not-found', { title: 'errors.notFound' }, 404)
    }
    if (err instanceof ApiError || (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)) {
      const locale = request.portalSession?.locale ?? 'ru'
      const detail = err instanceof ApiError ? err.details?.[0] : undefined
      const message = detail
        ? detailSentence(locale, detail)
        : errorSentence(locale, err instanceof ApiError ? err : new ApiError('VALIDATION_ERROR'))
      return reply.portalPage('problem', { title: 'errors.title', message }, err.statusCode ?? 400)
    }
    if (!isUnavailable(err)) request.log.error({ err }, 'portal page failed')
    return reply.portalPage(
      'unexpected',
      { title: 'errors.unexpected', reference: request.id },
      isUnavailable(err) ? 503 : 500
    )
  })
  fastify.setNotFoundHandler(async function portalNotFound (request, reply) {
    if (!isPageRequest(request)) return reply.code(404).send(errorBody('NOT_FOUND', 'Not found.'))
    return reply.portalPage('not-found', { title: 'errors.notFound' }, 404)
  })

  await fastify.register(entering, { cookieName })
  fastify.get(SIGNED_OUT_PAGE.slice('/portal'.length), async function signedOut (_request, reply) {
    return reply.barePage('signed-out', 'shell.signedOutTitle', 200)
  })
  await fastify.register(async function shopPages (scope) {
    requirePortalSession(scope, cookieName, (reply) => reply.barePage('session-ended', 'session.endedTitle', 401))
    await limitPortalChanges(scope)
    scope.get('/', async function portalHome (_request, reply) {
      return reply.redirect('/portal/attention', 303)
    })
    await scope.register(language)
    await scope.register(timeZone)
    await scope.register(signOut, { cookieName })
    await scope.register(attention, { prefix: '/attention' })
    await scope.register(orders, { prefix: '/orders' })
    await scope.register(apiKeys, { prefix: '/api-keys' })
    await scope.register(webhooks, { prefix: '/webhooks' })
    await scope.register(webhookAttempts, { prefix: '/webhooks' })
    await scope.register(deliveryEndpoint, { prefix: '/delivery-endpoint' })
    await scope.register(stock, { prefix: '/stock' })
    await scope.register(claims, { prefix: '/claims' })
    await scope.register(chatRules, { prefix: '/chat-rules' })
    await scope.register(sales, { prefix: '/sales' })
    await scope.register(activity, { prefix: '/activity' })
  })
}
