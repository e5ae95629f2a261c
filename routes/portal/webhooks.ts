// The Webhooks page (docs/portal.md): the shop's endpoints with their health; one
// endpoint's health, settings, test, secret rotation and deletion (each irreversible
// step after a confirmation), and its delivery log with retries (one, or all failed;
// a delivery's attempts: webhook-attempts.ts). Every change goes through the
// /v1 calls' own service (services/webhooks/service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { MAX_ENDPOINTS_PER_SHOP } from '../../services/webhooks/service.js'
import { eventTypes } from '../../domain/event-types.js'
import { EndpointCreateBody, EndpointPatchBody } from '../../schemas/webhooks.js'
import {
  createWebhookEndpoint, deleteWebhookEndpoint, type EndpointView, getWebhookEndpoint, listWebhookEndpoints,
  listWebhookSends, retryFailedWebhookSends, retryWebhookSend, rotateWebhookSecret, sendWebhookTest,
  updateWebhookEndpoint
} from '../../services/webhooks/service.js'
import {
  webhookEndpointHealth, webhookEndpointsHealth, webhookSendFailures
} from '../../services/webhooks/health.js'
import { hostOf, recordPortalAction } from './activity.js'
import { attempt, formOf, list, text, validated, type Form } from './forms.js'
import { pluralizer, translator, wordsOf } from './i18n/index.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }
const SENDS_PER_PAGE = 20

const endpointFields: FormFields = {
  url: { id: 'url', label: 'hooks.url' },
  description: { id: 'description', label: 'hooks.description' },
  eventTypes: { id: `event-${eventTypes[0]}`, label: 'hooks.events' },
  enabled: { id: 'enabled-on', label: 'hooks.state' }
}

/** The form as the page shows it again after an error. */
const formValues = (form: Form) => ({
  url: text(form, 'url'),
  description: text(form, 'description'),
  eventTypes: list(form, 'eventTypes'),
  enabled: text(form, 'enabled') !== 'false'
})
const valuesOf = (endpoint: EndpointView) => ({
  url: endpoint.url,
  description: endpoint.description,
  eventTypes: endpoint.eventTypes,
  enabled: endpoint.enabled
})

export default async function webhooksPage (fastify: FastifyInstance) {
  const shared = { section: 'webhooks' as const, eventTypes, maxEndpoints: MAX_ENDPOINTS_PER_SHOP }

  async function listPage (request: FastifyRequest, reply: FastifyReply, data: Partial<PageData> = {}) {
    const { shopId } = request.portalSession!
    const [endpoints, healthById] = await Promise.all([
      listWebhookEndpoints(fastify, shopId), webhookEndpointsHealth(fastify, shopId)
    ])
    return reply.portalPage('webhooks', {
      ...shared,
      title: 'hooks.title',
      canonical: '/portal/webhooks',
      endpoints: endpoints.map((endpoint) => ({ ...endpoint, health: healthById.get(endpoint.id) })),
      ...data
    })
  }

  async function endpointPage (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    data: Partial<PageData> = {}
  ) {
    const { shopId } = request.portalSession!
    const endpoint = await getWebhookEndpoint(fastify, shopId, request.params.id)
    const after = (request.query as Record<string, unknown>).after
    const log = await attempt(() =>
      listWebhookSends(fastify, shopId, endpoint.id, {
        limit: SENDS_PER_PAGE,
        after: typeof after === 'string' && request.method === 'GET' ? after : undefined
      })
    )
    const page = log.ok ? log.value : await listWebhookSends(fastify, shopId, endpoint.id, { limit: SENDS_PER_PAGE })
    return reply.portalPage('webhook', {
      ...shared,
      title: 'hooks.endpointTitle',
      canonical: `/portal/webhooks/${endpoint.id}`,
      endpoint,
      health: await webhookEndpointHealth(fastify, shopId, endpoint.id),
      failures: await webhookSendFailures(fastify, shopId, endpoint.id, page.deliveries.map((send) => send.id)),
      ...page,
      paged: typeof after === 'string',
      ...data
    })
  }

  fastify.get('/', async function webhooks (request, reply) {
    return listPage(request, reply)
  })

  fastify.get('/new', async function newEndpoint (_request, reply) {
    return reply.portalPage('webhook-form', {
      ...shared,
      title: 'hooks.newTitle',
      action: '/portal/webhooks',
      values: formValues({})
    })
  })

  fastify.post('/', async function createEndpoint (request, reply) {
    const session = request.portalSession!
    const form = formOf(request.body)
    const body = {
      url: text(form, 'url'),
      description: text(form, 'description'),
      eventTypes: list(form, 'eventTypes')
    }
    const created = await attempt(() => createWebhookEndpoint(
      fastify, session.shopId, validated(EndpointCreateBody, body)
    ))
    if (!created.ok) {
      const errors = formErrors(created.error, session.locale, endpointFields, 'url')
      return reply.portalPage(
        'webhook-form',
        {
          ...shared,
          title: 'hooks.newTitle',
          canonical: '/portal/webhooks/new',
          action: '/portal/webhooks',
          values: formValues(form),
          errors
        },
        400
      )
    }
    const { endpoint, secret } = created.value
    await recordPortalAction(fastify, request, 'webhook.created', { host: hostOf(endpoint.url) })
    return reply.portalPage(
      'webhook-secret',
      { ...shared, title: 'hooks.createdTitle', canonical: `/portal/webhooks/${endpoint.id}`, endpoint, secret },
      201
    )
  })

  fastify.get<{ Params: Params }>('/:id', async function endpoint (request, reply) {
    return endpointPage(request, reply)
  })

  fastify.post<{ Params: Params }>('/:id/test', async function sendTest (request, reply) {
    const session = request.portalSession!
    await sendWebhookTest(fastify, session.shopId, request.params.id)
    const endpoint = await getWebhookEndpoint(fastify, session.shopId, request.params.id)
    await recordPortalAction(fastify, request, 'webhook.tested', { host: hostOf(endpoint.url) })
    return endpointPage(request, reply, { notice: translator(session.locale)('hooks.testSent') })
  })

  fastify.get<{ Params: Params }>('/:id/edit', async function editEndpoint (request, reply) {
    const endpoint = await getWebhookEndpoint(fastify, request.portalSession!.shopId, request.params.id)
    return reply.portalPage('webhook-form', {
      ...shared,
      title: 'hooks.editTitle',
      action: `/portal/webhooks/${endpoint.id}/edit`,
      endpoint,
      values: valuesOf(endpoint)
    })
  })

  fastify.post<{ Params: Params }>('/:id/edit', async function saveEndpoint (request, reply) {
    const session = request.portalSession!
    const form = formOf(request.body)
    const enabled = text(form, 'enabled')
    const body = {
      url: text(form, 'url'),
      description: text(form, 'description'),
      eventTypes: list(form, 'eventTypes'),
      enabled: enabled === 'true' ? true : enabled === 'false' ? false : enabled
    }
    const saved = await attempt(() =>
      updateWebhookEndpoint(fastify, session.shopId, request.params.id, validated(EndpointPatchBody, body))
    )
    if (!saved.ok) {
      if (saved.error.statusCode === 404) throw saved.error
      const endpoint = await getWebhookEndpoint(fastify, session.shopId, request.params.id)
      const errors = formErrors(saved.error, session.locale, endpointFields, 'url')
      return reply.portalPage(
        'webhook-form',
        {
          ...shared,
          title: 'hooks.editTitle',
          canonical: `/portal/webhooks/${endpoint.id}/edit`,
          action: `/portal/webhooks/${endpoint.id}/edit`,
          endpoint,
          values: formValues(form),
          errors
        },
        400
      )
    }
    await recordPortalAction(fastify, request, 'webhook.updated', { host: hostOf(saved.value.url) })
    return endpointPage(request, reply, { notice: translator(session.locale)('hooks.saved') })
  })

  fastify.get<{ Params: Params }>('/:id/rotate', async function confirmRotate (request, reply) {
    const endpoint = await getWebhookEndpoint(fastify, request.portalSession!.shopId, request.params.id)
    return reply.portalPage('confirm', {
      ...shared,
      title: 'hooks.rotateTitle',
      text: 'hooks.rotateText',
      action: `/portal/webhooks/${endpoint.id}/rotate`,
      cancel: `/portal/webhooks/${endpoint.id}`
    })
  })

  fastify.post<{ Params: Params }>('/:id/rotate', async function rotateSecret (request, reply) {
    const { endpoint, secret } = await rotateWebhookSecret(fastify, request.portalSession!.shopId, request.params.id)
    await recordPortalAction(fastify, request, 'webhook.rotated', { host: hostOf(endpoint.url) })
    return reply.portalPage('webhook-secret', {
      ...shared,
      title: 'hooks.rotatedTitle',
      canonical: `/portal/webhooks/${endpoint.id}`,
      endpoint,
      secret
    })
  })

  fastify.get<{ Params: Params }>('/:id/delete', async function confirmDelete (request, reply) {
    const endpoint = await getWebhookEndpoint(fastify, request.portalSession!.shopId, request.params.id)
    return reply.portalPage('confirm', {
      ...shared,
      title: 'hooks.deleteTitle',
      titleParams: { url: endpoint.url },
      text: 'hooks.deleteText',
      action: `/portal/webhooks/${endpoint.id}/delete`,
      cancel: `/portal/webhooks/${endpoint.id}`
    })
  })

  fastify.post<{ Params: Params }>('/:id/delete', async function deleteEndpoint (request, reply) {
    const session = request.portalSession!
    const endpoint = await deleteWebhookEndpoint(fastify, session.shopId, request.params.id)
    await recordPortalAction(fastify, request, 'webhook.deleted', { host: hostOf(endpoint.url) })
    return listPage(request, reply, { notice: translator(session.locale)('hooks.deleted', { url: endpoint.url }) })
  })

  fastify.post<{ Params: Params & { deliveryId: string } }>(
    '/:id/deliveries/:deliveryId/retry',
    async function retrySend (request, reply) {
      const session = request.portalSession!
      await retryWebhookSend(fastify, session.shopId, request.params.id, request.params.deliveryId)
      const endpoint = await getWebhookEndpoint(fastify, session.shopId, request.params.id)
      await recordPortalAction(fastify, request, 'webhook.retried', { host: hostOf(endpoint.url) })
      return endpointPage(request, reply, { notice: translator(session.locale)('hooks.retried') })
    }
  )

  fastify.post<{ Params: Params }>('/:id/deliveries/retry-failed', async function retryFailed (request, reply) {
    const session = request.portalSession!
    const { retried } = await retryFailedWebhookSends(fastify, session.shopId, request.params.id)
    const endpoint = await getWebhookEndpoint(fastify, session.shopId, request.params.id)
    const notice = retried === 0
      ? translator(session.locale)('hooks.retryFailedNone')
      : pluralizer(session.locale)(wordsOf(session.locale).retriedFailed, retried)
    if (retried > 0) await recordPortalAction(fastify, request, 'webhook.retriedFailed', { host: hostOf(endpoint.url) })
    return endpointPage(request, reply, { notice })
  })
}
