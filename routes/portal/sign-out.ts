// POST /portal/sign-out: the seller ends the session (docs/portal.md). A change
// like any other (the CSRF token), which a read-only session may make too and the
// change limit does not count (change-limit.ts): always possible. The cookie is
// cleared and the browser goes to a page saying the session ended.
import type { FastifyInstance } from 'fastify'
import { endSession } from '../../services/portal/service.js'
import { recordPortalAction } from './activity.js'

export const SIGNED_OUT_PAGE = '/portal/signed-out'

export default async function signOut (fastify: FastifyInstance, { cookieName }: { cookieName: string }) {
  const options = { config: { portalReadOnlyAllowed: true, portalUncounted: true } }
  fastify.post('/sign-out', options, async function signOut (request, reply) {
    await recordPortalAction(fastify, request, 'session.signedOut')
    await endSession(fastify.db, request.portalSession!.id)
    reply.clearCookie(cookieName, { path: '/' })
    if (request.headers['hx-request'] === 'true') return reply.header('hx-redirect', SIGNED_OUT_PAGE).code(204).send()
    return reply.redirect(SIGNED_OUT_PAGE, 303)
  })
}
