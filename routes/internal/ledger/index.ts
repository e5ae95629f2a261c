// Placeholder: the operator ledger routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const ledgerRoutes: FastifyPluginAsyncTypebox = async () => {}

export default ledgerRoutes
