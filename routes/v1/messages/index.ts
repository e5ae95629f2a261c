// Placeholder: the messages routes of the seller API.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const messagesRoutes: FastifyPluginAsyncTypebox = async () => {}

export default messagesRoutes
