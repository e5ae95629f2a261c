// A claim's shape in the data layer (docs/claims.md): the columns its
// representation (ClaimSchema of schemas/claims.ts) is read from, and the
// representation made from them.
import type { ClaimReason, ClaimStatus, ResolutionKind, ResolvedBy } from '../../domain/claims.js'
import { isoTime } from '../core/time.js'

/** A claim as the API shows it. */
export interface Claim {
  id: string
  orderId: string
  productId: string
  status: ClaimStatus
  reason: ClaimReason
  text: string
  valueIndexes: number[]
  respondBy: string
  createdAt: string
  resolvedAt: string | null
  resolution: { kind: ResolutionKind, by: ResolvedBy, note: string | null, amount: number | null } | null
  escalatedAt: string | null
}

/** A claim's row as claimColumns reads it, with its shop and whether its order is visible through /v1. */
export interface ClaimRow extends Omit<Claim, 'resolution'> {
  shopId: string
  external: boolean
  resolutionKind: ResolutionKind | null
  resolutionBy: ResolvedBy | null
  resolutionNote: string | null
  resolutionAmount: number | null
}

/** The columns of claims `c` joined to its order `o`, named as ClaimRow. */
export const claimColumns = (c = 'c', o = 'o') => `${c}.id, ${c}.shop_id as "shopId", ${c}.order_id as "orderId",
  ${c}.product_id as "productId", ${c}.status, ${c}.reason, ${c}.text, ${c}.value_indexes as "valueIndexes",
  ${isoTime(`${c}.respond_by`)} as "respondBy", ${isoTime(`${c}.created_at`)} as "createdAt",
  ${isoTime(`${c}.resolved_at`)} as "resolvedAt", ${isoTime(`${c}.escalated_at`)} as "escalatedAt",
  ${c}.resolution_kind as "resolutionKind", ${c}.resolution_by as "resolutionBy", ${c}.resolution_note as
    "resolutionNote",
  ${c}.resolution_amount::float8 as "resolutionAmount", ${o}.external`

export function claimView (row: ClaimRow): Claim {
  return {
    id: row.id,
    orderId: row.orderId,
    productId: row.productId,
    status: row.status,
    reason: row.reason,
    text: row.text,
    valueIndexes: row.valueIndexes,
    respondBy: row.respondBy,
    createdAt: row.createdAt,
    resolvedAt: row.resolvedAt,
    resolution: row.resolutionKind === null
      ? null
      : {
          kind: row.resolutionKind,
          by: row.resolutionBy!,
          note: row.resolutionNote,
          amount: row.resolutionAmount === null ? null : Number(row.resolutionAmount)
        },
    escalatedAt: row.escalatedAt
  }
}
