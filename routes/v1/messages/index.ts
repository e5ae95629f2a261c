// /v1/orders/{id}/messages: the order chat, as the shop. Poll GET with the
// previous `nextCursor` to receive every new message exactly once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import * as orderService from '../../../services/orders/service.js'
import { CommonErrors, Envelope, ErrorBody, IdParams, sellerSecurity } from '../../../schemas/common.js'
import { MessageBody, MessageList, MessageListQuery, MessageSchema } from '../../../schemas/messages.js'

const messagesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/:id/messages', {
    schema: {
      operationId: 'listOrderMessages',
      tags: ['messages'],
      summary: 'Read the order chat',
      description: 'Messages created strictly after `cursor`, oldest first. `nextCursor` is the createdAt of ' +
        'the last message returned, or the cursor you sent when nothing is new (null if you sent none). ' +
        'createdAt is strictly increasing within an order, so polling with `nextCursor` never skips or ' +
        'repeats a message.',
      security: sellerSecurity,
      params: IdParams,
      querystring: MessageListQuery,
      response: { 200: Envelope(MessageList), ...CommonErrors }
    }
  }, async function readChat (request) {
    const chat = await orderService.readChat(fastify, request.apiKey!.shopId, request.params.id, request.query)
    return { success: true as const, data: chat }
  })

  fastify.post('/:id/messages', {
    config: { idempotent: true },
    schema: {
      operationId: 'postOrderMessage',
      tags: ['messages'],
      summary: 'Post a message as the shop',
      description: 'Publishes `text` (1–4000 characters after trimming) in the order chat with `senderRole` ' +
        '`seller`. Honours `Idempotency-Key`.',
      security: sellerSecurity,
      params: IdParams,
      body: MessageBody,
      response: {
        201: Envelope(Type.Object({ message: MessageSchema })),
        ...CommonErrors,
        409: Type.Ref(ErrorBody),
        422: Type.Ref(ErrorBody)
      }
    }
  }, async function postSellerMessage (request, reply) {
    const message = await orderService.postSellerMessage(fastify, request.apiKey!.shopId, request.params.id,
      request.body.text)
    return reply.code(201).send({ success: true as const, data: { message } })
  })
}

export default messagesRoutes
