// /portal/enter?token=…: the operator's link (docs/portal.md). A good token,
// opened with GET for the first time before it expires, starts a session: the
// browser-session cookie is set and the browser goes on to /portal/. Anything
// else (used, voided, expired, unknown, malformed, missing) answers 401 with a
// page saying so, and sets no cookie. HEAD only says whether the link would open
// (mail scanners and link previews send it): it never uses a link up. A link of
// another shop than the browser's live session asks first (a page naming both);
// only its form, posted with that session's CSRF token, uses the link and ends
// the old session, so no other site can switch a seller into a shop of its own.
// Limited per client IP as the other public route is (PUBLIC_RATE_LIMIT_MAX per
// RATE_LIMIT_WINDOW_MS, windows of its own): a token cannot be guessed, but each
// opening is a database lookup, and nobody may turn the link into database load.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { endSession, enterPortal, findOpenableLink, touchLiveSession } from '../../services/portal/service.js'
import { ApiError } from '../../domain/errors.js'
import { isWellFormedLinkToken, isWellFormedSessionToken } from '../../domain/portal-token.js'
import { limitPerClientIp } from '../../plugins/client-ip-rate-limit.js'
import { recordPortalAction } from './activity.js'
import { formOf, text } from './forms.js'
import { sameToken } from './session.js'

const tokenOf = (value: unknown) => (typeof value === 'string' && isWellFormedLinkToken(value) ? value : undefined)

export default async function entering (fastify: FastifyInstance, options: { cookieName: string }) {
  const { cookieName } = options
  const secure = fastify.config.PUBLIC_BASE_URL.startsWith('https://')

  await limitPerClientIp(fastify, 'portal-enter-ip')
  // The refusal as a page in both languages, as a bad link's: the link's own language is not known before it is read.
  fastify.setErrorHandler(async function enterRefused (err: Error, _request, reply) {
    if (!(err instanceof ApiError && err.code === 'RATE_LIMIT')) throw err
    return reply.barePage('too-many-openings', 'link.tooManyTitle', 429)
  })

  /** The browser's live session, if its cookie holds one. */
  async function currentSession (request: FastifyRequest) {
    const cookie = request.cookies[cookieName]
    return cookie !== undefined && isWellFormedSessionToken(cookie) ? touchLiveSession(fastify.db, cookie) : undefined
  }

  /** Uses the link up and starts its session: the cookie lives as long as the browser (no Max-Age). */
  async function enter (request: FastifyRequest, reply: FastifyReply, token: string, replacing?: string) {
    const started = await enterPortal(fastify, token)
    if (!started) return reply.barePage('link-invalid', 'link.invalidTitle', 401)
    if (replacing !== undefined) await endSession(fastify.db, replacing)
    reply.setCookie(cookieName, started.token, { path: '/', httpOnly: true, sameSite: 'lax', secure })
    request.portalSession = started.session
    await recordPortalAction(fastify, request, 'session.entered', { readOnly: started.session.readOnly })
    return reply.redirect('/portal/', 303)
  }

  fastify.head('/enter', async function checkLink (request, reply) {
    const token = tokenOf((request.query as Record<string, unknown>).token)
    const link = token === undefined ? null : await findOpenableLink(fastify.db, token)
    return reply.code(link ? 200 : 401).type('text/html; charset=utf-8').send()
  })

  fastify.get('/enter', { exposeHeadRoute: false }, async function enterPortal (request, reply) {
    const token = tokenOf((request.query as Record<string, unknown>).token)
    const link = token === undefined ? null : await findOpenableLink(fastify.db, token)
    if (!link) return reply.barePage('link-invalid', 'link.invalidTitle', 401)
    const current = await currentSession(request)
    if (current && current.shopId !== link.shopId) {
      return reply.barePage('switch-shop', 'switch.title', 200, {
        locale: current.locale,
        current: current.shopName,
        other: link.shopName,
        token,
        csrf: current.csrfToken
      })
    }
    return enter(request, reply, token!)
  })

  // The switch, confirmed on the page above: only with the live session's CSRF token in the form.
  fastify.post('/enter', async function switchShop (request, reply) {
    const form = formOf(request.body)
    const token = tokenOf(text(form, 'token'))
    const current = await currentSession(request)
    if (!current || !sameToken(text(form, 'csrf'), current.csrfToken)) {
      return reply.barePage('switch-refused', 'switch.refusedTitle', 403)
    }
    if (token === undefined) return reply.barePage('link-invalid', 'link.invalidTitle', 401)
    return enter(request, reply, token, current.id)
  })
}
