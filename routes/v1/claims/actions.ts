// What each /v1/claims call does once its input passed the schema: the list's
// status filter, the notes trimmed and checked, the stock key required when a
// replacement takes values from stock, and the order's values revealed. The
// seller API's routes and the portal's Claims page (routes/portal) both call
// these, so an answer given in the browser follows the same rules and writes
// the same rows and events as the API.
import type { FastifyInstance } from 'fastify'
import { getClaim, listClaims } from '../../../db/claims/list.js'
import { refundClaim, rejectClaim, replaceClaim } from '../../../db/claims/settle.js'
import { claimText, MAX_CLAIM_NOTE, type ClaimStatus } from '../../../domain/claims.js'
import { revealOrder } from '../../../domain/delivered-values.js'
import type { ClaimListQuery, RefundClaimBody, RejectClaimBody, ReplaceClaimBody } from '../../../schemas/claims.js'

export function claimActions (fastify: FastifyInstance) {
  return {
    list (shopId: string, query: ClaimListQuery) {
      const { status, productId, limit, after } = query
      const statuses = status === undefined ? undefined : [...new Set(status.split(','))] as ClaimStatus[]
      return listClaims(fastify.db, shopId, { statuses, productId, limit, after })
    },

    get (shopId: string, claimId: string) {
      return getClaim(fastify.db, claimId, { shopId })
    },

    async replace (shopId: string, claimId: string, body: ReplaceClaimBody) {
      const values = body?.values
      // Taking from stock reveals values: that needs the key (503 naming it otherwise).
      const cipher = values === undefined ? fastify.requireStockCipher() : fastify.stockCipher
      const result = await replaceClaim(fastify.db, { shopId }, claimId, { values, cipher, by: 'seller' })
      return { claim: result.claim, order: revealOrder(result.order, fastify.stockCipher) }
    },

    async refund (shopId: string, claimId: string, body: RefundClaimBody) {
      const note = body?.note === undefined ? null : claimText(body.note, 'body.note', MAX_CLAIM_NOTE)
      const result = await refundClaim(fastify.db, { shopId }, claimId, note)
      return { claim: result.claim, order: revealOrder(result.order, fastify.stockCipher) }
    },

    async reject (shopId: string, claimId: string, body: RejectClaimBody) {
      const note = claimText(body.note, 'body.note', MAX_CLAIM_NOTE)
      return { claim: await rejectClaim(fastify.db, { shopId }, claimId, note) }
    }
  }
}
