// What each operator API-key call does once its input passed the schema: the
// shop must exist, the name is trimmed, the secret is returned once, a revocation
// reaches every instance before it answers. Called by the operator API's routes
// and by the portal's API keys page alike.
import type { FastifyInstance } from 'fastify'
import { apiKeyView, createApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from '../../db/shops/api-keys.js'
import { findShop } from '../../db/shops/shops.js'
import { isUuid } from '../../domain/ids.js'
import { notFound } from '../../domain/errors.js'

/**
 * Revokes a key and tells every instance in the same commit (db/shops/api-keys.ts
 * revokeApiKey): the transaction of auth's revokeApiKeyEverywhere and of the CLI.
 */
export function revokeApiKeyNotifying (
  app: Pick<FastifyInstance, 'db'>, shopId: string, keyId: string
): Promise<ApiKeyRow | undefined> {
  return app.db.transaction((tx) => revokeApiKey(tx, shopId, keyId))
}

export function apiKeyService (fastify: FastifyInstance) {
  async function requireShop (shopId: string) {
    if (!(await findShop(fastify.db, shopId))) throw notFound('Shop')
  }

  return {
    async create (shopId: string, name: string) {
      await requireShop(shopId)
      const { apiKey, secret } = await createApiKey(fastify.db, shopId, name.trim())
      return { apiKey: apiKeyView(apiKey), secret }
    },

    async list (shopId: string) {
      await requireShop(shopId)
      return (await listApiKeys(fastify.db, shopId)).map(apiKeyView)
    },

    async revoke (shopId: string, keyId: string) {
      const apiKey = isUuid(keyId) ? await fastify.revokeApiKeyEverywhere(shopId, keyId) : undefined
      if (!apiKey) throw notFound('API key')
      return apiKeyView(apiKey)
    }
  }
}
