// The portal session on every request of the shop's pages (docs/portal.md): the
// cookie's live session (Postgres, so every instance agrees; touching it keeps it
// from idling out), then, on anything but GET and HEAD, the session's CSRF token
// in X-CSRF-Token and a session that may change things. Without a live session a
// page answers the "session ended" page, anything else 401 SESSION_INVALID.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { touchLiveSession, type PortalSession } from '../../services/portal/service.js'
import { ApiError } from '../../domain/errors.js'
import { isWellFormedSessionToken } from '../../domain/portal-token.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The live portal session (set on every request of the session's scope). */
    portalSession: PortalSession | null
  }
  interface FastifyContextConfig {
    /** A change a read-only session may make too (its own language). */
    portalReadOnlyAllowed?: boolean
  }
}

/** `__Host-` on https: the browser then insists on Secure, Path=/ and no Domain. */
export const sessionCookieName = (publicBaseUrl: string) =>
  publicBaseUrl.startsWith('https://') ? '__Host-portal_session' : 'portal_session'

/** Whether `sent` is `expected`, compared in constant time. */
export const sameToken = (sent: string, expected: string) => {
  const a = Buffer.from(sent)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const isPageRequest = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD'

export function requirePortalSession (
  fastify: FastifyInstance,
  cookieName: string,
  sessionEnded: (reply: FastifyReply) => Promise<FastifyReply>
) {
  fastify.decorateRequest('portalSession', null)
  fastify.addHook('onRequest', async function portalSessionGuard (request, reply) {
    const token = request.cookies[cookieName]
    const session =
      token !== undefined && isWellFormedSessionToken(token) ? await touchLiveSession(fastify.db, token) : undefined
    if (!session) {
      if (token !== undefined) reply.clearCookie(cookieName, { path: '/' })
      if (isPageRequest(request)) return sessionEnded(reply)
      throw new ApiError('SESSION_INVALID')
    }
    request.portalSession = session
    if (isPageRequest(request)) return
    const sent = request.headers['x-csrf-token']
    if (typeof sent !== 'string' || !sameToken(sent, session.csrfToken)) {
      throw new ApiError('CSRF_INVALID')
    }
    if (session.readOnly && !request.routeOptions.config.portalReadOnlyAllowed) {
      throw new ApiError('READ_ONLY')
    }
  })
}
