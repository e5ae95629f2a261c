// The API keys page (docs/portal.md): the shop's keys, a new key's secret shown
// once, and revocation after a confirmation. Through the operator API's own
// service (services/shops/api-keys.ts): the same rules, and a
// revocation that reaches every instance before the page answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { NameInput } from '../../schemas/operator.js'
import { createShopApiKey, listShopApiKeys, revokeShopApiKey } from '../../services/shops/api-keys.js'
import { recordPortalAction } from './activity.js'
import { attempt, formOf, text, validated } from './forms.js'
import { translator } from './i18n/index.js'
import { formErrors, type PageData } from './render.js'

type Params = { id: string }

export default async function apiKeysPage (fastify: FastifyInstance) {
  async function listPage (request: FastifyRequest, reply: FastifyReply, data: Partial<PageData> = {}, status = 200) {
    const keys = await listShopApiKeys(fastify, request.portalSession!.shopId)
    return reply.portalPage(
      'api-keys',
      { section: 'api-keys', title: 'keys.title', canonical: '/portal/api-keys', keys, name: '', ...data },
      status
    )
  }

  fastify.get('/', async function apiKeys (request, reply) {
    return listPage(request, reply)
  })

  fastify.post('/', async function createKey (request, reply) {
    const session = request.portalSession!
    const name = text(formOf(request.body), 'name')
    const created = await attempt(async () => createShopApiKey(
      fastify, session.shopId, validated(NameInput, { name }).name
    ))
    if (!created.ok) {
      return listPage(
        request,
        reply,
        {
          name,
          errors: formErrors(created.error, session.locale, { name: { id: 'key-name', label: 'keys.name' } }, 'name')
        },
        400
      )
    }
    const { apiKey, secret } = created.value
    await recordPortalAction(fastify, request, 'apiKey.created', { name: apiKey.name, prefix: apiKey.prefix })
    return listPage(request, reply, { created: { name: apiKey.name, secret } }, 201)
  })

  fastify.get<{ Params: Params }>('/:id/revoke', async function confirmRevoke (request, reply) {
    const key = (await listShopApiKeys(fastify, request.portalSession!.shopId)).find(
      (k) => k.id === request.params.id && k.revokedAt === null
    )
    if (!key) return reply.portalPage('not-found', { section: 'api-keys', title: 'errors.notFound' }, 404)
    return reply.portalPage('api-key-revoke', {
      section: 'api-keys',
      title: 'keys.revokeTitle',
      titleParams: { name: key.name },
      key
    })
  })

  fastify.post<{ Params: Params }>('/:id/revoke', async function revokeKey (request, reply) {
    const session = request.portalSession!
    const key = await revokeShopApiKey(fastify, session.shopId, request.params.id)
    await recordPortalAction(fastify, request, 'apiKey.revoked', { name: key.name, prefix: key.prefix })
    return listPage(request, reply, { notice: translator(session.locale)('keys.revoked', { name: key.name }) })
  })
}
