// A shop's API keys: create (the secret is shown once), list, revoke.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { apiKeyView, createApiKey, listApiKeys } from '../../../db/api-keys.js'
import { findShop } from '../../../db/shops.js'
import { orderNotFound } from '../../../domain/errors.js'
import { Envelope, ErrorBody, Id } from '../../../schemas/common.js'
import { ApiKeySchema, internalSecurity, NameInput, ShopParams } from '../../../schemas/operator.js'

const errors = { 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) }

const apiKeysRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/:shopId/api-keys', {
    schema: {
      operationId: 'createApiKey',
      tags: ['internal'],
      summary: 'Create an API key',
      description: 'Returns the secret once; only its SHA-256 hash is kept.',
      security: internalSecurity,
      params: ShopParams,
      body: NameInput,
      response: { 201: Envelope(Type.Object({ apiKey: ApiKeySchema, secret: Type.String() })), ...errors }
    }
  }, async function createKey (request, reply) {
    const { shopId } = request.params
    if (!await findShop(fastify.db, shopId)) throw orderNotFound('Shop')
    const { apiKey, secret } = await createApiKey(fastify.db, shopId, request.body.name.trim())
    return reply.code(201).send({ success: true as const, data: { apiKey: apiKeyView(apiKey), secret } })
  })

  fastify.get('/:shopId/api-keys', {
    schema: {
      operationId: 'listApiKeys',
      tags: ['internal'],
      summary: 'List API keys (never the secrets)',
      description: 'The shop\'s keys and whether each is revoked; a key\'s secret is shown only once, when it is created.',
      security: internalSecurity,
      params: ShopParams,
      response: { 200: Envelope(Type.Object({ apiKeys: Type.Array(ApiKeySchema) })), ...errors }
    }
  }, async function listKeys (request) {
    const { shopId } = request.params
    if (!await findShop(fastify.db, shopId)) throw orderNotFound('Shop')
    const keys = await listApiKeys(fastify.db, shopId)
    return { success: true as const, data: { apiKeys: keys.map(apiKeyView) } }
  })

  fastify.post('/:shopId/api-keys/:keyId/revoke', {
    schema: {
      operationId: 'revokeApiKey',
      tags: ['internal'],
      summary: 'Revoke an API key',
      description: 'Takes effect on the very next request, on every instance: the revocation and its notice to every instance are one commit. Safe to repeat (a revoked key keeps its first revocation time). A held long poll of the key is answered 401.',
      security: internalSecurity,
      params: Type.Object({ shopId: Id, keyId: Id }),
      response: { 200: Envelope(Type.Object({ apiKey: ApiKeySchema })), ...errors, 503: Type.Ref(ErrorBody) }
    }
  }, async function revokeKey (request) {
    const apiKey = await fastify.revokeApiKeyEverywhere(request.params.shopId, request.params.keyId)
    if (!apiKey) throw orderNotFound('API key')
    return { success: true as const, data: { apiKey: apiKeyView(apiKey) } }
  })
}

export default apiKeysRoutes
