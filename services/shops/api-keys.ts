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

type ApiKeyApp = Pick<FastifyInstance, 'db' | 'revokeApiKeyEverywhere'>

async function requireShop (app: Pick<FastifyInstance, 'db'>, shopId: string) {
  if (!(await findShop(app.db, shopId))) throw notFound('Shop')
}

/** A new key of the shop, its secret shown once; 404 NOT_FOUND for an unknown shop. */
export async function createShopApiKey (app: Pick<FastifyInstance, 'db'>, shopId: string, name: string) {
  await requireShop(app, shopId)
  const { apiKey, secret } = await createApiKey(app.db, shopId, name.trim())
  return { apiKey: apiKeyView(apiKey), secret }
}

export async function listShopApiKeys (app: Pick<FastifyInstance, 'db'>, shopId: string) {
  await requireShop(app, shopId)
  return (await listApiKeys(app.db, shopId)).map(apiKeyView)
}

/** Revokes the key on every instance before answering; 404 NOT_FOUND when the shop has no such key. */
export async function revokeShopApiKey (app: ApiKeyApp, shopId: string, keyId: string) {
  const apiKey = isUuid(keyId) ? await app.revokeApiKeyEverywhere(shopId, keyId) : undefined
  if (!apiKey) throw notFound('API key')
  return apiKeyView(apiKey)
}
