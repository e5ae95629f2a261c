// The operator's side of claims (docs/claims.md), as the marketplace relays the
// buyer: open a claim on an order, escalate a rejection, and resolve an
// escalated claim. Idempotency keys are scoped to the operator token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { claimNotFound } from '../../../domain/claims.js'
import { openClaim } from '../../../services/claims/open.js'
import { escalateClaim, resolveClaim } from '../../../services/claims/operator.js'
import { ClaimData, ClaimSchema, EscalateClaimBody, OpenClaimBody, ResolveClaimBody } from '../../../schemas/claims.js'
import { Envelope, ErrorBody, IdParams } from '../../../schemas/common.js'
import { internalSecurity } from '../../../schemas/operator.js'
import { OrderSchema } from '../../../schemas/orders.js'

const errors = {
  400: Type.Ref(ErrorBody),
  401: Type.Ref(ErrorBody),
  404: Type.Ref(ErrorBody),
  409: Type.Ref(ErrorBody),
  422: Type.Ref(ErrorBody)
}

const operatorClaimsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/orders/:id/claims', {
    config: { idempotent: true },
    schema: {
      operationId: 'openClaim',
      tags: ['internal'],
      summary: 'Open a claim as the buyer',
      description: 'The order must be `awaiting_confirmation`, or `completed` at most `CLAIM_WINDOW_DAYS` ' +
        'after delivery (else 409 ORDER_INVALID_STATUS). One open or escalated claim per order (409 ' +
        'CLAIM_ALREADY_OPEN), 3 in all (409 CLAIM_LIMIT). ' +
        '`respondBy` = now + `CLAIM_RESPONSE_SECONDS`. With the stock\'s `autoReplace`, a claim whose ' +
          'reported values all came from stock is replaced at once (once per order) and answered already ' +
          '`replaced`. Honours `Idempotency-Key`.',
      security: internalSecurity,
      params: IdParams,
      body: OpenClaimBody,
      response: { 201: Envelope(ClaimData), ...errors }
    }
  }, async function open (request, reply) {
    const claim = await openClaim(fastify, request.params.id, request.body)
    return reply.code(201).send({ success: true as const, data: { claim } })
  })

  fastify.post('/claims/:id/escalate', {
    config: { idempotent: true, notFound: claimNotFound },
    schema: {
      operationId: 'escalateClaim',
      tags: ['internal'],
      summary: 'Escalate a rejected claim as the buyer',
      description: 'A claim the shop rejected, within `CLAIM_WINDOW_DAYS` of the rejection (else 409 ' +
        'CLAIM_INVALID_STATUS): it becomes `escalated` and waits for the shop (replace or refund) or the ' +
        'operator\'s resolve. `text` is posted in the chat as the buyer\'s. Honours `Idempotency-Key`.',
      security: internalSecurity,
      params: IdParams,
      body: EscalateClaimBody,
      response: { 200: Envelope(ClaimData), ...errors }
    }
  }, async function escalate (request) {
    const claim = await escalateClaim(fastify, request.params.id, request.body?.text)
    return { success: true as const, data: { claim } }
  })

  fastify.post('/claims/:id/resolve', {
    config: { idempotent: true, notFound: claimNotFound },
    schema: {
      operationId: 'resolveClaim',
      tags: ['internal'],
      summary: 'Resolve an escalated claim',
      description: 'Only an `escalated` claim (else 409 CLAIM_INVALID_STATUS). `refund`: the order is ' +
        'refunded as the shop\'s refund does; `reject`: the claim is rejected for good. Honours `Idempotency-Key`.',
      security: internalSecurity,
      params: IdParams,
      body: ResolveClaimBody,
      response: { 200: Envelope(Type.Object({ claim: ClaimSchema, order: Type.Optional(OrderSchema) })), ...errors }
    }
  }, async function resolve (request) {
    const { claim, order } = await resolveClaim(fastify, request.params.id, request.body.outcome, request.body.note)
    return { success: true as const, data: { claim, ...(order ? { order } : {}) } }
  })
}

export default operatorClaimsRoutes
