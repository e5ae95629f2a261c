// The deadline's statement (docs/claims.md; the sweep is services/claims/deadline.ts):
// one open claim past its `respondBy`, taken with FOR UPDATE SKIP LOCKED so two
// instances never take the same one.
import type { Tx } from '../core/client.js'
import { run } from '../core/sql.js'
import { NOW_MS } from '../core/time.js'
import { claimColumns, type ClaimRow } from './row.js'

/** Locks one due open claim that no other transaction holds; undefined when none is left. */
export async function lockDueClaim (tx: Tx): Promise<ClaimRow | undefined> {
  const [claim] = await run<ClaimRow>(tx, `select ${claimColumns()} from claims c join orders o on o.id = c.order_id
    where c.id = (select id from claims where status = 'open' and respond_by <= ${NOW_MS} order by respond_by
      limit 1 for update skip locked)
    for update of c`)
  return claim
}
