// GET /portal/enter?token=…: the operator's link (docs/portal.md). A good token,
// opened for the first time before it expires, starts a session: the cookie is
// set and the browser goes on to /portal/. Anything else (used, expired, unknown,
// malformed, missing) answers 401 with a page saying so, and sets no cookie.
// Limited per client IP as the other public route is (PUBLIC_RATE_LIMIT_MAX per
// RATE_LIMIT_WINDOW_MS, windows of its own): a token cannot be guessed, but each
// opening is a database lookup, and nobody may turn the link into database load.
import type { FastifyInstance } from 'fastify'
import { enterWithLink } from '../../services/portal/service.js'
import { ApiError } from '../../domain/errors.js'
import { isWellFormedLinkToken, SESSION_ABSOLUTE_MS } from '../../domain/portal-token.js'
import { limitPerClientIp } from '../../plugins/client-ip-rate-limit.js'
import { recordPortalAction } from './activity.js'

export default async function entering (fastify: FastifyInstance, options: { cookieName: string }) {
  const secure = fastify.config.PUBLIC_BASE_URL.startsWith('https://')

  await limitPerClientIp(fastify, 'portal-enter-ip')
  // The refusal as a page in both languages, as a bad link's: the link's own language is not known before it is read.
  fastify.setErrorHandler(async function enterRefused (err: Error, _request, reply) {
    if (!(err instanceof ApiError && err.code === 'RATE_LIMIT')) throw err
    return reply.barePage('too-many-openings', 'link.tooManyTitle', 429)
  })

  fastify.get('/enter', async function enterPortal (request, reply) {
    const token = (request.query as Record<string, unknown>).token
    const started =
      typeof token === 'string' && isWellFormedLinkToken(token) ? await enterWithLink(fastify.db, token) : null
    if (!started) return reply.barePage('link-invalid', 'link.invalidTitle', 401)
    reply.setCookie(options.cookieName, started.token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: SESSION_ABSOLUTE_MS / 1000
    })
    request.portalSession = started.session
    await recordPortalAction(fastify, request, 'session.entered', { readOnly: started.session.readOnly })
    return reply.redirect('/portal/', 303)
  })
}
