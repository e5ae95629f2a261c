// The Activity page (docs/portal.md): the shop's last 200 portal changes, when,
// what and by which session; and how a change is recorded. A record holds
// names, counts and hosts only: never a secret, a code or a whole URL (its path
// or query could carry a token).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { listActivity, recordActivity, type ActivityDetails } from '../../db/portal/activity.js'
import type { MessageKey, Translate } from './i18n/index.js'

/** The host of a URL, for a record (the rest of it may hold a secret). */
export const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return ''
  }
}

/**
 * Records a change the session made. The change is already committed: a failure
 * here is logged, not shown, so the page still tells the seller what was done.
 */
export async function recordPortalAction (
  fastify: FastifyInstance,
  request: FastifyRequest,
  action: string,
  details: ActivityDetails = {}
) {
  const session = request.portalSession!
  await recordActivity(fastify.db, { shopId: session.shopId, sessionId: session.id, action, details }).catch(
    (err: unknown) => {
      request.log.warn({ err, action }, 'could not record a portal action')
    }
  )
}

/** What a record says, in the page's language. */
export function describeAction (t: Translate, action: string, details: ActivityDetails): string {
  const params: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(details)) {
    if (value !== null && typeof value !== 'boolean') params[name] = value
  }
  if (action === 'session.entered') params.readOnly = details.readOnly ? t('activity.session.entered.readOnly') : ''
  if (action === 'delivery.tested') {
    params.result = t(details.ok ? 'activity.delivery.tested.ok' : 'activity.delivery.tested.bad')
  }
  return t(`activity.${action}` as MessageKey, params)
}

export default async function activity (fastify: FastifyInstance) {
  fastify.get('/', async function activityPage (request, reply) {
    const entries = await listActivity(fastify.db, request.portalSession!.shopId)
    return reply.portalPage('activity', { section: 'activity', title: 'activity.title', entries, describeAction })
  })
}
