// /internal/v1/orders: the buyer's side of an order, for the marketplace around
// the service (docs/api-rules.md, the operator API): purchase, chat as the buyer, confirm receipt.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { postBuyerMessage as postAndAnswer } from '../../../services/chat-rules/buyer-messages.js'
import * as orderService from '../../../services/orders/service.js'
import { PURCHASE_BODY_LIMIT } from '../../../schemas/body-limits.js'
import { Envelope, ErrorBody, IdParams } from '../../../schemas/common.js'
import { MessageBody, MessageSchema } from '../../../schemas/messages.js'
import { internalSecurity } from '../../../schemas/operator.js'
import { OrderSchema, PurchaseBody } from '../../../schemas/orders.js'

const errors = { 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) }
const OrderEnvelope = Envelope(Type.Object({ order: OrderSchema }))

const ordersRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/', {
    bodyLimit: PURCHASE_BODY_LIMIT,
    schema: {
      operationId: 'createPurchase',
      tags: ['internal'],
      summary: 'Record a buyer\'s paid purchase',
      description: 'Creates a `paid` order of an active, non-archived product. `amount` = quantity × (price + ' +
        'the chosen options\' prices) at the current currency rate, in rubles rounded half up to kopecks. ' +
        'With the product\'s `autoDelivery: stock` and enough available items (of the chosen option), the ' +
        'order is delivered from stock in the same transaction: `awaiting_confirmation`, `assigneeType` ' +
        '`auto`. Every required field needs a value; a select field takes option id(s), comma-separated when ' +
        '`multiple`, and the order keeps their labels.',
      security: internalSecurity,
      body: PurchaseBody,
      response: { 201: OrderEnvelope, ...errors }
    }
  }, async function purchase (request, reply) {
    // The order is recorded paid and waits: never a value the key could not authenticate.
    const order = await orderService.purchase(fastify, request.body, (err) =>
      request.log.error({ err: { message: err.message } }, 'stock unreadable: the order waits'))
    return reply.code(201).send({ success: true as const, data: { order } })
  })

  fastify.post('/:id/messages', {
    schema: {
      operationId: 'postBuyerMessage',
      tags: ['internal'],
      summary: 'Post a message as the buyer',
      description: 'Publishes `text` (1–4000 characters after trimming) in the order chat with `senderRole` `buyer`; ' +
        'the shop\'s chat rules answer it in the same transaction (docs/chat-rules.md).',
      security: internalSecurity,
      params: IdParams,
      body: MessageBody,
      response: { 201: Envelope(Type.Object({ message: MessageSchema })), ...errors }
    }
  }, async function postBuyerMessage (request, reply) {
    const message = await postAndAnswer(fastify, request.params.id, request.body.text)
    return reply.code(201).send({ success: true as const, data: { message } })
  })

  fastify.post('/:id/confirm', {
    schema: {
      operationId: 'confirmOrder',
      tags: ['internal'],
      summary: 'Confirm receipt as the buyer',
      description: '`awaiting_confirmation` → `completed`; the shop is credited the full amount in the same ' +
        'transaction. Any other status: 409 ORDER_INVALID_STATUS.',
      security: internalSecurity,
      params: IdParams,
      response: { 200: OrderEnvelope, ...errors, 409: Type.Ref(ErrorBody) }
    }
  }, async function confirm (request) {
    const order = await orderService.confirmOrder(fastify, request.params.id)
    return { success: true as const, data: { order } }
  })
}

export default ordersRoutes
