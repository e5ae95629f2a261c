// POST /internal/v1/shops: create a shop.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { createShop } from '../../../services/shops/service.js'
import { Envelope, ErrorBody } from '../../../schemas/common.js'
import { internalSecurity, NameInput, ShopSchema } from '../../../schemas/operator.js'

const shopsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/', {
    schema: {
      operationId: 'createShop',
      tags: ['internal'],
      summary: 'Create a shop',
      description: 'A new shop with the given name; its API keys are created separately.',
      security: internalSecurity,
      body: NameInput,
      response: { 201: Envelope(Type.Object({ shop: ShopSchema })), 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody) }
    }
  }, async function createShopRoute (request, reply) {
    const shop = await createShop(fastify.db, request.body.name.trim())
    return reply.code(201).send({
      success: true as const,
      data: { shop: { ...shop, createdAt: shop.createdAt.toISOString() } }
    })
  })
}

export default shopsRoutes
