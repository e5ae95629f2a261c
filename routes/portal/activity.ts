// The Activity page (docs/portal.md): the shop's last 200 portal changes, when,
// what and by which session; and how a change is recorded. A record holds
// names, counts and hosts only: never a secret, a code or a whole URL (its path
// or query could carry a token).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { listActivity, recordActivity, type ActivityDetails } from '../../services/portal/service.js'
import type { Pluralize, Translate } from './i18n/index.js'
import { ACTIVITY_ACTIONS, fill, type ActivityAction, type Words } from './i18n/words.js'

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
  action: ActivityAction,
  details: ActivityDetails = {}
) {
  const session = request.portalSession!
  await recordActivity(fastify.db, { shopId: session.shopId, sessionId: session.id, action, details }).catch(
    (err: unknown) => {
      request.log.warn({ err, action }, 'could not record a portal action')
    }
  )
}

const isActivityAction = (action: string): action is ActivityAction =>
  (ACTIVITY_ACTIONS as readonly string[]).includes(action)

/**
 * What a record says, in the page's language (`words` and `plural` of that language).
 * An action this version does not know (written by a newer one) is shown as recorded.
 */
export function describeAction (t: Translate, words: Words, plural: Pluralize, action: string,
  details: ActivityDetails): string {
  if (!isActivityAction(action)) return action
  const params: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(details)) {
    if (value !== null && typeof value !== 'boolean') params[name] = value
  }
  if (action === 'session.entered') params.readOnly = details.readOnly ? t('activity.session.entered.readOnly') : ''
  if (action === 'delivery.tested') {
    params.result = t(details.ok ? 'activity.delivery.tested.ok' : 'activity.delivery.tested.bad')
  }
  const text = words.activity[action]
  if (typeof text === 'string') return fill(text, params)
  // The counting records: the codes a claim replaced or stock lost (count), or an upload added (added).
  return plural(text, Number(details.count ?? details.added ?? 0), params)
}

export default async function activity (fastify: FastifyInstance) {
  fastify.get('/', async function activityPage (request, reply) {
    const entries = await listActivity(fastify.db, request.portalSession!.shopId)
    return reply.portalPage('activity', { section: 'activity', title: 'activity.title', entries, describeAction })
  })
}
