// The session's time zone (docs/portal.md): every time on the pages is shown in
// it, with the zone named; Europe/Moscow until the seller picks another here,
// from the header's link beside the language switch. Like the language it changes
// no shop setting, so a read-only session may change it too.
import type { FastifyInstance } from 'fastify'
import { setSessionTimeZone } from '../../services/portal/service.js'
import { isTimeZone } from '../../domain/sales-stats.js'
import { ruleOf, validationError } from '../../domain/errors.js'
import { attempt, formOf, text } from './forms.js'
import { formErrors, type FormFields } from './render.js'

/** Time zones offered in the field's list (any other IANA name can be typed). */
export const PORTAL_ZONES = [
  'Europe/Kaliningrad', 'Europe/Moscow', 'Europe/Samara', 'Asia/Yekaterinburg', 'Asia/Omsk', 'Asia/Novosibirsk',
  'Asia/Krasnoyarsk', 'Asia/Irkutsk', 'Asia/Yakutsk', 'Asia/Vladivostok', 'Asia/Magadan', 'Asia/Kamchatka',
  'Europe/Minsk', 'Europe/Kyiv', 'Asia/Almaty', 'Asia/Tashkent', 'Asia/Tbilisi', 'Europe/Berlin', 'UTC'
]

const fields: FormFields = { tz: { id: 'tz', label: 'zone.label' } }

/** Where to go back to: a portal page of this site, else the portal's home. */
const backTo = (value: string) => (/^\/portal\/[A-Za-z0-9/_-]*$/.test(value) ? value : '/portal/')

export default async function timeZone (fastify: FastifyInstance) {
  const options = { config: { portalReadOnlyAllowed: true } }
  fastify.get('/time-zone', async function timeZonePage (request, reply) {
    const back = backTo(text(formOf(request.query), 'return'))
    return reply.portalPage('time-zone', {
      title: 'zone.title', zones: PORTAL_ZONES, values: { tz: request.portalSession!.tz, return: back }
    })
  })
  fastify.post('/time-zone', options, async function changeTimeZone (request, reply) {
    const form = formOf(request.body)
    const tz = text(form, 'tz').trim()
    const back = backTo(text(form, 'return'))
    const changed = await attempt(async () => {
      if (!isTimeZone(tz)) {
        throw validationError('Unknown time zone.', [
          { path: 'body.tz', message: 'must be an IANA time zone name', rule: ruleOf('x-time-zone', {}) }
        ])
      }
      await setSessionTimeZone(fastify.db, request.portalSession!.id, tz)
    })
    if (!changed.ok) {
      return reply.portalPage('time-zone', {
        title: 'zone.title',
        canonical: '/portal/time-zone',
        zones: PORTAL_ZONES,
        values: { tz, return: back },
        errors: formErrors(changed.error, request.portalSession!.locale, fields)
      }, 400)
    }
    if (request.headers['hx-request'] === 'true') return reply.header('hx-redirect', back).code(204).send()
    return reply.redirect(back, 303)
  })
}
