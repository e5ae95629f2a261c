// A claim read under its row lock, and its changes: every claim action starts
// here, so two actions on one claim queue on its row and the second sees the
// first one's outcome (409 CLAIM_INVALID_STATUS), on any number of instances.
import { isUuid } from '../../domain/ids.js'
import { claimNotFound, statusAfter, type ResolutionKind, type ResolvedBy } from '../../domain/claims.js'
import type { Tx } from '../core/client.js'
import { runPrepared } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'
import { claimColumns, type ClaimRow } from './row.js'

/** Who asks: a shop sees only its claims of orders visible through /v1; null is the operator. */
export type ClaimScope = { shopId: string } | null

/** A claim read under its lock, with the transaction's time as the database writes it (`now`). */
export type LockedClaim = ClaimRow & { now: string }

/** The columns of a locked claim: claimColumns and the transaction's time. */
export const lockedClaimColumns = `${claimColumns()}, ${isoTime(NOW_MS)} as now`

/** Locks the claim's row and reads it; 404 NOT_FOUND when it is not visible in `scope`. */
export async function lockClaim (tx: Tx, claimId: string, scope: ClaimScope): Promise<LockedClaim> {
  const [row] = isUuid(claimId)
    ? await runPrepared<LockedClaim>(tx, `select ${lockedClaimColumns} from claims c join orders o on o.id = c.order_id
      where c.id = $1 and ($2::uuid is null or (c.shop_id = $2::uuid and o.external)) for update of c`,
    [claimId, scope?.shopId ?? null])
    : []
  if (!row) throw claimNotFound()
  return row
}

/** How a claim is settled: its resolution, and the transaction's time `now` (as LockedClaim has it). */
export interface Settlement {
  kind: ResolutionKind
  by: ResolvedBy
  note: string | null
  amount: number | null
  now: string
}

/**
 * Settles the claim: status and resolution of `kind`, by whom, with its note and
 * refunded amount, resolved at `now`. One statement, sent at once; the claim
 * as it now is comes back without reading it again (the database's time of the
 * transaction is the `now` given).
 */
export function settleClaim (
  tx: Tx, claim: ClaimRow, settlement: Settlement
): { settled: ClaimRow, written: Promise<unknown> } {
  const { kind, by, note, amount, now } = settlement
  const status = statusAfter[kind]
  const written = runPrepared(tx, `update claims set status = $2, resolution_kind = $3, resolution_by = $4,
      resolution_note = $5, resolution_amount = $6::numeric, resolved_at = ${NOW_MS} where id = $1`,
  [claim.id, status, kind, by, note, amount === null ? null : String(amount)])
  const settled: ClaimRow = {
    ...claim,
    status,
    resolutionKind: kind,
    resolutionBy: by,
    resolutionNote: note,
    resolutionAmount: amount,
    resolvedAt: now
  }
  return { settled, written }
}

/** The buyer escalates: the rejection is reopened for the shop or the operator. */
export async function escalateClaimRow (tx: Tx, claimId: string): Promise<ClaimRow> {
  const [row] = await runPrepared<ClaimRow>(tx, `update claims c set status = 'escalated', escalated_at = ${NOW_MS},
      resolution_kind = null, resolution_by = null, resolution_note = null, resolution_amount = null, resolved_at = null
    from orders o where c.id = $1 and o.id = c.order_id returning ${claimColumns()}`, [claimId])
  return row
}
