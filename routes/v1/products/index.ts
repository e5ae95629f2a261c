// Placeholder: the products routes of the seller API.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const productsRoutes: FastifyPluginAsyncTypebox = async () => {}

export default productsRoutes
