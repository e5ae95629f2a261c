// Reading claims (docs/claims.md): one claim of the shop, and the shop's claims
// newest first, a page at a time after an opaque cursor (created_at and id).
import { claimNotFound, type ClaimStatus } from '../../domain/claims.js'
import { validationError } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import type { Queryable } from '../core/client.js'
import { run } from '../core/sql.js'
import type { ClaimScope } from './lock.js'
import { claimColumns, claimView, type Claim, type ClaimRow } from './row.js'

/** The claim when visible in `scope`; 404 NOT_FOUND otherwise. */
export async function getClaim (db: Queryable, claimId: string, scope: ClaimScope): Promise<Claim> {
  const [row] = isUuid(claimId)
    ? await run<ClaimRow>(db, `select ${claimColumns()} from claims c join orders o on o.id = c.order_id
      where c.id = $1 and ($2::uuid is null or (c.shop_id = $2::uuid and
        o.external))`, [claimId, scope?.shopId ?? null])
    : []
  if (!row) throw claimNotFound()
  return claimView(row)
}

export interface ClaimListOptions { statuses?: ClaimStatus[], productId?: string, limit: number, after?: string }

const cursorOf = (row: ClaimRow) => Buffer.from(`${row.createdAt}|${row.id}`).toString('base64url')

function parseCursor (after: string): { createdAt: string, id: string } {
  const [createdAt, id, extra] = Buffer.from(after, 'base64url').toString().split('|')
  if (extra !== undefined || !isUuid(id ?? '') || Number.isNaN(Date.parse(createdAt)) || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(createdAt)) {
    throw validationError('after must be a nextCursor of an earlier ' +
      'page.', [{ path: 'querystring.after', message: 'is not a cursor' }])
  }
  return { createdAt, id }
}

/** A page of the shop's visible claims, newest first; `nextCursor` null at the end. */
export async function listClaims (
  db: Queryable, shopId: string, options: ClaimListOptions
): Promise<{ claims: Claim[], nextCursor: string | null }> {
  const cursor = options.after === undefined ? null : parseCursor(options.after)
  if (options.productId !== undefined && !isUuid(options.productId)) return { claims: [], nextCursor: null }
  const rows = await run<ClaimRow>(db, `select ${claimColumns()} from claims c join orders o on o.id = c.order_id
    where c.shop_id = $1 and o.external and ($2::text[] is null or c.status = any($2::text[]))
      and ($3::uuid is null or c.product_id = $3::uuid)
      and ($4::timestamptz is null or (c.created_at, c.id) < ($4::timestamptz, $5::uuid))
    order by c.created_at desc, c.id desc limit $6`, [
    shopId, options.statuses === undefined ? null : `{${options.statuses.join(',')}}`, options.productId ?? null,
    cursor?.createdAt ?? null, cursor?.id ?? null, options.limit + 1
  ])
  const page = rows.slice(0, options.limit)
  return {
    claims: page.map(claimView),
    nextCursor: rows.length > options.limit ? cursorOf(page[page.length - 1]) : null
  }
}
