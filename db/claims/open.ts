// The statements of a claim's opening (docs/claims.md; the transaction is
// services/claims/open.ts): the product's `autoReplace`, the order's earlier
// claims, the claim's row, and whether the stock can replace its values.
import type { ClaimStatus } from '../../domain/claims.js'
import type { Tx } from '../core/client.js'
import { run } from '../core/sql.js'
import { NOW_MS } from '../core/time.js'
import { claimColumns, type ClaimRow } from './row.js'

/** The product of the order (or `productId`) and its `autoReplace`. */
export async function readAutoReplace (
  tx: Tx, orderId: string, productId: string | null
): Promise<{ productId: string, autoReplace: boolean } | undefined> {
  const [row] = await run<{ productId: string, autoReplace: boolean }>(tx,
    `select p.id as "productId", p.auto_replace as "autoReplace"
    from products p where p.id = coalesce($2::uuid, (select product_id from orders where id = $1))`,
    [orderId, productId])
  return row
}

/** Whether this order was already replaced automatically once. */
export async function autoReplacedBefore (tx: Tx, orderId: string): Promise<boolean> {
  const [row] = await run(tx, "select 1 from claims where order_id = $1 and resolution_kind = 'replaced' and " +
    "resolution_by = 'auto' limit 1", [orderId])
  return row !== undefined
}

/** The statuses of the order's claims so far. */
export function claimsOfOrder (tx: Tx, orderId: string): Promise<Array<{ status: ClaimStatus }>> {
  return run<{ status: ClaimStatus }>(tx, 'select status from claims where order_id = $1', [orderId])
}

export interface NewClaim {
  shopId: string
  orderId: string
  productId: string
  reason: string
  text: string
  valueIndexes: number[]
  responseSeconds: number
}

/** Inserts the claim (due `responseSeconds` from now) and reads it back as a ClaimRow. */
export async function insertClaim (tx: Tx, claim: NewClaim): Promise<ClaimRow> {
  const [opened] = await run<ClaimRow>(tx, `with c as (
      insert into claims (shop_id, order_id, product_id, reason, text, value_indexes, respond_by, created_at)
      values ($1, $2, $3, $4, $5, $6::text::jsonb, ${NOW_MS} + make_interval(secs => $7::int), ${NOW_MS})
        returning *
    ) select ${claimColumns('c', 'o')} from c join orders o on o.id = c.order_id`,
  [claim.shopId, claim.orderId, claim.productId, claim.reason, claim.text, JSON.stringify(claim.valueIndexes),
    claim.responseSeconds])
  return opened
}

/** Whether the product's stock holds `count` available items of the option the order's item `index` had. */
export async function stockCoversReplacement (
  tx: Tx, productId: string, orderId: string, index: number, count: number
): Promise<boolean> {
  const [{ enough }] = await run<{ enough: boolean }>(tx,
    `select coalesce(sum(available), 0) >= $3 as enough from stock_counts
    where product_id = $1 and option_key = (select option_key from stock_items where order_id = $2 and
      status = 'delivered' and delivered_index = $4)`, [productId, orderId, count, index])
  return enough
}
