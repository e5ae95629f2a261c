// POST /portal/language: the session's language, Russian or English (the link's
// locale until then). It changes no shop setting, so a read-only session may too.
// htmx reloads the page the switch was on (HX-Redirect), so all of it changes.
import type { FastifyInstance } from 'fastify'
import { setSessionLocale } from '../../services/portal/service.js'
import { PORTAL_LOCALES, type PortalLocale } from '../../domain/portal-token.js'
import { validationError } from '../../domain/errors.js'

/** Where to go back to: a portal page of this site, else the portal's home. */
const backTo = (value: unknown) =>
  typeof value === 'string' && /^\/portal\/[A-Za-z0-9/_-]*$/.test(value) ? value : '/portal/'

export default async function language (fastify: FastifyInstance) {
  const options = { config: { portalReadOnlyAllowed: true } }
  fastify.post('/language', options, async function switchLanguage (request, reply) {
    const body = (request.body ?? {}) as Record<string, unknown>
    if (!PORTAL_LOCALES.includes(body.locale as PortalLocale)) {
      throw validationError('Invalid request: body.locale must be ru or en.', [
        { path: 'body.locale', message: 'must be ru or en' }
      ])
    }
    await setSessionLocale(fastify.db, request.portalSession!.id, body.locale as PortalLocale)
    const target = backTo(body.return)
    if (request.headers['hx-request'] === 'true') return reply.header('hx-redirect', target).code(204).send()
    return reply.redirect(target, 303)
  })
}
