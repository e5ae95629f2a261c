// Placeholder: public image files at GET /media/<id>.<ext>.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const mediaFilesRoutes: FastifyPluginAsyncTypebox = async () => {}

export default mediaFilesRoutes
