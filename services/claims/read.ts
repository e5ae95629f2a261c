// Reading the shop's claims (docs/claims.md): the list's status filter made a
// set, then one statement of db/claims/list.ts.
import type { FastifyInstance } from 'fastify'
import { getClaim, listClaims } from '../../db/claims/list.js'
import type { Claim } from '../../db/claims/row.js'

export type { Claim }
import type { ClaimStatus } from '../../domain/claims.js'
import type { ClaimListQuery } from '../../schemas/claims.js'

type ClaimApp = Pick<FastifyInstance, 'db'>

/** A page of the shop's visible claims, newest first, of the statuses `query.status` names. */
export function listClaimsForShop (
  app: ClaimApp, shopId: string, query: ClaimListQuery
): Promise<{ claims: Claim[], nextCursor: string | null }> {
  const { status, productId, limit, after } = query
  const statuses = status === undefined ? undefined : [...new Set(status.split(','))] as ClaimStatus[]
  return listClaims(app.db, shopId, { statuses, productId, limit, after })
}

/** One claim of the shop; 404 NOT_FOUND when it is not visible to it. */
export function getClaimForShop (app: ClaimApp, shopId: string, claimId: string): Promise<Claim> {
  return getClaim(app.db, claimId, { shopId })
}
