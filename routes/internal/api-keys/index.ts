// A shop's API keys: create (the secret is shown once), list, revoke.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Envelope, ErrorBody, Id, SecretString } from '../../../schemas/common.js'
import { ApiKeySchema, internalSecurity, NameInput, ShopParams } from '../../../schemas/operator.js'
import { createShopApiKey, listShopApiKeys, revokeShopApiKey } from '../../../services/shops/api-keys.js'

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
      response: {
        201: Envelope(Type.Object({
          apiKey: ApiKeySchema, secret: SecretString('The key, `service_sk_…`: shown only now.')
        })),
        ...errors
      }
    }
  }, async function createKey (request, reply) {
    return reply.code(201).send({
      success: true as const,
      data: await createShopApiKey(fastify, request.params.shopId, request.body.name)
    })
  })

  fastify.get('/:shopId/api-keys', {
    schema: {
      operationId: 'listApiKeys',
      tags: ['internal'],
      summary: 'List API keys (never the secrets)',
      description: 'The shop\'s keys and whether each is revoked; a key\'s secret is shown only once, when it ' +
        'is created.',
      security: internalSecurity,
      params: ShopParams,
      response: { 200: Envelope(Type.Object({ apiKeys: Type.Array(ApiKeySchema) })), ...errors }
    }
  }, async function listKeys (request) {
    return { success: true as const, data: { apiKeys: await listShopApiKeys(fastify, request.params.shopId) } }
  })

  fastify.post('/:shopId/api-keys/:keyId/revoke', {
    schema: {
      operationId: 'revokeApiKey',
      tags: ['internal'],
      summary: 'Revoke an API key',
      description: 'Takes effect on the very next request, on every instance: the revocation and its notice ' +
        'to every instance are one commit. Safe to repeat (a revoked key keeps its first revocation time). A ' +
        'held long poll of the key is answered 401.',
      security: internalSecurity,
      params: Type.Object({ shopId: Id, keyId: Id }),
      response: { 200: Envelope(Type.Object({ apiKey: ApiKeySchema })), ...errors, 503: Type.Ref(ErrorBody) }
    }
  }, async function revokeKey (request) {
    return {
      success: true as const,
      data: { apiKey: await revokeShopApiKey(fastify, request.params.shopId, request.params.keyId) }
    }
  })
}

export default apiKeysRoutes
