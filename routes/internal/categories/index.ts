// POST /internal/v1/categories: add a marketplace leaf category with its filters.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { findClashingCategory, getCategory, insertCategory } from '../../../db/categories.js'
import { validationError } from '../../../plugins/errors.js'
import { CategoryInputSchema, CategorySchema } from '../../../schemas/catalog.js'
import { Envelope, ErrorBody } from '../../../schemas/common.js'
import { internalSecurity } from '../../../schemas/operator.js'

const categoriesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/', {
    schema: {
      tags: ['internal'],
      summary: 'Create a category',
      description: 'Only leaves are categories: the English path must not equal, contain or extend an existing one.',
      security: internalSecurity,
      body: CategoryInputSchema,
      response: { 201: Envelope(Type.Object({ category: CategorySchema })), 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody) }
    }
  }, async function createCategory (request, reply) {
    const input = request.body
    const id = await fastify.db.transaction(async (tx) => {
      const clash = await findClashingCategory(tx, input.pathEn)
      if (clash) {
        throw validationError(`pathEn clashes with the existing category "${clash.pathEn}"; categories are leaves.`, [{ path: 'body.pathEn', message: 'clashes with an existing category' }])
      }
      return insertCategory(tx, input)
    })
    if (id === null) throw validationError('A category with this pathEn already exists.', [{ path: 'body.pathEn', message: 'already exists' }])
    const category = await getCategory(fastify.db, id)
    return reply.code(201).send({ success: true as const, data: { category: category! } })
  })
}

export default categoriesRoutes
