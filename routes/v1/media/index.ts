// Placeholder: the media routes of the seller API.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const mediaRoutes: FastifyPluginAsyncTypebox = async () => {}

export default mediaRoutes
