// POST /internal/v1/categories: add a marketplace leaf category with its filters.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { createCategory } from '../../../services/catalog/service.js'
import { CategoryInputSchema, CategorySchema } from '../../../schemas/catalog.js'
import { CATEGORY_BODY_LIMIT } from '../../../schemas/body-limits.js'
import { Envelope, ErrorBody } from '../../../schemas/common.js'
import { internalSecurity } from '../../../schemas/operator.js'

const categoriesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/', {
    bodyLimit: CATEGORY_BODY_LIMIT,
    schema: {
      operationId: 'createCategory',
      tags: ['internal'],
      summary: 'Create a category',
      description: 'Only leaves are categories: the English path must not equal, contain or extend an existing one.',
      security: internalSecurity,
      body: CategoryInputSchema,
      response: {
        201: Envelope(Type.Object({ category: CategorySchema })),
        400: Type.Ref(ErrorBody),
        401: Type.Ref(ErrorBody)
      }
    }
  }, async function createOperatorCategory (request, reply) {
    const category = await createCategory(fastify, request.body)
    return reply.code(201).send({ success: true as const, data: { category } })
  })
}

export default categoriesRoutes
