// Placeholder: the orders routes of the seller API.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const ordersRoutes: FastifyPluginAsyncTypebox = async () => {}

export default ordersRoutes
