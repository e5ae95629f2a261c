// GET /v1/categories: the leaf categories a product can be placed in.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { listCategories } from '../../../services/catalog/service.js'
import { CategorySchema } from '../../../schemas/catalog.js'
import { CommonErrors, Envelope, sellerSecurity } from '../../../schemas/common.js'

const categoriesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'listCategories',
      tags: ['catalog'],
      summary: 'List categories',
      description: 'Marketplace-wide leaf categories with their filters (variant tags); use `id` as a ' +
        'product\'s `categoryId`.',
      security: sellerSecurity,
      response: { 200: Envelope(Type.Object({ categories: Type.Array(CategorySchema) })), ...CommonErrors }
    }
  }, async function listAllCategories () {
    return { success: true as const, data: { categories: await listCategories(fastify.db) } }
  })
}

export default categoriesRoutes
