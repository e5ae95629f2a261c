// /v1/claims: the shop's side of claims (docs/claims.md) — list, read, and the
// three answers: replace (from stock or with given values), refund, reject.
// Only claims of orders visible through /v1 (products with automation) are
// here; the rules live in domain/claims.ts, what each call does in
// services/claims/ (shared with the portal's Claims page and the operator API).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  ClaimData, ClaimListQuery, ClaimOrderData, ClaimPage, RefundClaimBody, RejectClaimBody, ReplaceClaimBody
} from '../../../schemas/claims.js'
import { CommonErrors, Envelope, ErrorBody, IdParams, sellerSecurity } from '../../../schemas/common.js'
import { claimNotFound } from '../../../domain/claims.js'
import { getClaimForShop, listClaimsForShop } from '../../../services/claims/read.js'
import { refundClaim, rejectClaim, replaceClaim } from '../../../services/claims/settle.js'

const actionResponses = (data: typeof ClaimData | typeof ClaimOrderData) =>
  ({ 200: Envelope(data), ...CommonErrors, 409: Type.Ref(ErrorBody), 422: Type.Ref(ErrorBody) })
const idempotencyNote = 'Honours `Idempotency-Key`. Of concurrent actions on one claim exactly one wins; the ' +
  'others get 409 CLAIM_INVALID_STATUS.'

const claimsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/', {
    schema: {
      operationId: 'listClaims',
      tags: ['claims'],
      summary: 'List claims',
      description: 'The shop\'s claims, newest first, filtered by `status` (one or several, comma-separated) ' +
        'and `productId`; `after` is the previous page\'s `nextCursor`.',
      security: sellerSecurity,
      querystring: ClaimListQuery,
      response: { 200: Envelope(ClaimPage), ...CommonErrors }
    }
  }, async function listShopClaims (request) {
    const page = await listClaimsForShop(fastify, request.apiKey!.shopId, request.query)
    return { success: true as const, data: page }
  })

  fastify.get('/:id', {
    config: { notFound: claimNotFound },
    schema: {
      operationId: 'getClaim',
      tags: ['claims'],
      summary: 'Get a claim',
      description: 'One claim of the shop; another shop\'s is 404 NOT_FOUND.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: Envelope(ClaimData), ...CommonErrors }
    }
  }, async function getShopClaim (request) {
    const claim = await getClaimForShop(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { claim } }
  })

  fastify.post('/:id/replace', {
    config: { idempotent: true, notFound: claimNotFound },
    schema: {
      operationId: 'replaceClaim',
      tags: ['claims'],
      summary: 'Replace the reported values',
      description: 'An `open` or `escalated` claim. With `values` (one per reported position): they take ' +
        'those positions in `deliveredValues`. Without: that many items are taken from the product\'s stock, ' +
        'oldest first (of the order\'s option), in the same transaction; too few: 409 STOCK_INSUFFICIENT and ' +
        'nothing changes. ' +
        'The reported stock items become `defective` (never sold again). The order keeps its status; the feed ' +
          'gets `order.updated` then `claim.resolved`. A claim reporting no value: 400. ' + idempotencyNote,
      security: sellerSecurity,
      params: IdParams,
      body: ReplaceClaimBody,
      response: actionResponses(ClaimOrderData)
    }
  }, async function replace (request) {
    const data = await replaceClaim(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return { success: true as const, data }
  })

  fastify.post('/:id/refund', {
    config: { idempotent: true, notFound: claimNotFound },
    schema: {
      operationId: 'refundClaim',
      tags: ['claims'],
      summary: 'Refund the claimed order',
      description: 'An `open` or `escalated` claim: the whole order is refunded and `cancelled`, from ' +
        '`awaiting_confirmation` (a `refund` ledger row) or `completed` (a `debit` row taking the shop\'s ' +
        'credit back, and a `refund` row). The reported stock items become `defective`. The feed gets ' +
        '`order.cancelled` then `claim.resolved`. ' + idempotencyNote,
      security: sellerSecurity,
      params: IdParams,
      body: RefundClaimBody,
      response: actionResponses(ClaimOrderData)
    }
  }, async function refund (request) {
    const data = await refundClaim(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return { success: true as const, data }
  })

  fastify.post('/:id/reject', {
    config: { idempotent: true, notFound: claimNotFound },
    schema: {
      operationId: 'rejectClaim',
      tags: ['claims'],
      summary: 'Reject a claim',
      description: 'An `open` claim, with a `note` saying why. The buyer may escalate it within ' +
        '`CLAIM_WINDOW_DAYS`. ' + idempotencyNote,
      security: sellerSecurity,
      params: IdParams,
      body: RejectClaimBody,
      response: actionResponses(ClaimData)
    }
  }, async function reject (request) {
    const data = await rejectClaim(fastify, request.apiKey!.shopId, request.params.id, request.body)
    return { success: true as const, data }
  })
}

export default claimsRoutes
