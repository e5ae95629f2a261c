// POST /portal/sign-out: the seller ends the session (docs/portal.md). A change
// like any other (the CSRF token), which a read-only session may make too; the
// cookie is cleared and the browser goes to a page saying the session ended.
import type { FastifyInstance } from 'fastify'
import { endSession } from '../../db/portal/sessions.js'
import { recordPortalAction } from './activity.js'

export const SIGNED_OUT_PAGE = '/portal/signed-out'

export default async function signOut (fastify: FastifyInstance, options: { cookieName: string }) {
  fastify.post('/sign-out', { config: { portalReadOnlyAllowed: true } }, async function signOut (request, reply) {
    await recordPortalAction(fastify, request, 'session.signedOut')
    await endSession(fastify.db, request.portalSession!.id)
    reply.clearCookie(options.cookieName, { path: '/' })
    if (request.headers['hx-request'] === 'true') return reply.header('hx-redirect', SIGNED_OUT_PAGE).code(204).send()
    return reply.redirect(SIGNED_OUT_PAGE, 303)
  })
}
