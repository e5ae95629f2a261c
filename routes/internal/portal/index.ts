// The operator's seller-portal calls (docs/portal.md): a single-use link into a
// shop's portal, and ending every portal session of a shop.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { createPortalLink, revokePortalAccess } from '../../../services/portal/service.js'
import { findShop } from '../../../services/shops/service.js'
import { LINK_TTL } from '../../../domain/portal-token.js'
import { notFound } from '../../../domain/errors.js'
import { Envelope, ErrorBody, OptionalBody } from '../../../schemas/common.js'
import { internalSecurity, ShopParams } from '../../../schemas/operator.js'
import { PortalLinkBody, PortalLinkSchema } from '../../../schemas/portal.js'

const errors = { 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) }

const portalRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  async function requireShop (shopId: string) {
    if (!(await findShop(fastify.db, shopId))) throw notFound('Shop')
  }

  fastify.post(
    '/:shopId/portal-links',
    {
      schema: {
        operationId: 'createPortalLink',
        tags: ['internal'],
        summary: 'Create a seller portal link',
        description:
          "A link that opens the shop's seller portal once, before it expires, and starts a session of 12 hours " +
          '(ended earlier by an hour without a request or by revocation). ' +
          'The token in it is kept only as a hash, never logged.',
        security: internalSecurity,
        params: ShopParams,
        body: OptionalBody(PortalLinkBody),
        response: { 201: Envelope(PortalLinkSchema), ...errors }
      }
    },
    async function createLink (request, reply) {
      const { shopId } = request.params
      await requireShop(shopId)
      const body = request.body ?? {}
      const { token, expiresAt } = await createPortalLink(fastify.db, shopId, {
        ttlSeconds: body.ttlSeconds ?? LINK_TTL.default,
        readOnly: body.readOnly ?? false,
        locale: body.locale ?? 'ru'
      })
      const url = `${fastify.config.PUBLIC_BASE_URL}/portal/enter?token=${token}`
      return reply.code(201).send({ success: true as const, data: { url, expiresAt: expiresAt.toISOString() } })
    }
  )

  fastify.post(
    '/:shopId/portal-sessions/revoke',
    {
      schema: {
        operationId: 'revokePortalSessions',
        tags: ['internal'],
        summary: "End a shop's seller portal sessions",
        description:
          "Ends every portal session of the shop: each one's next request, on any instance, finds no session. " +
          'Also voids the shop\'s links not yet opened: each then answers as a used one and starts no session. ' +
          '`revoked` counts the sessions that were still live.',
        security: internalSecurity,
        params: ShopParams,
        response: { 200: Envelope(Type.Object({ revoked: Type.Integer() })), ...errors }
      }
    },
    async function revokeSessions (request) {
      const { shopId } = request.params
      await requireShop(shopId)
      const revoked = await revokePortalAccess(fastify, shopId)
      return { success: true as const, data: { revoked } }
    }
  )
}

export default portalRoutes
