// Placeholder: the operator orders routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const ordersRoutes: FastifyPluginAsyncTypebox = async () => {}

export default ordersRoutes
