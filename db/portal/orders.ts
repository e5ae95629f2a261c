// The portal's Orders pages (docs/portal.md): the shop's orders visible through
// /v1 (shop_id and external, as db/orders/orders.ts lists them), newest first,
// a page at a time after an opaque cursor (createdAt and id), filtered by
// statuses, product, a date range and an id prefix; and what an order's page
// shows besides the order: its events from the shop's feed and its claims.
import type { OrderStatus } from '../../domain/order-transitions.js'
import { validationError } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import type { Queryable } from '../core/client.js'
import { run } from '../core/sql.js'
import { isoTime } from '../core/time.js'
import { orderResponseColumns, type StoredOrder } from '../orders/row.js'
import { claimColumns, claimView, type Claim, type ClaimRow } from '../claims/row.js'

export interface PortalOrderFilter {
  statuses: OrderStatus[]
  productId?: string
  /** Created at or after (inclusive), before (exclusive): instants. */
  from?: Date
  to?: Date
  /** A prefix of the order's id, 8 to 36 characters of lowercase hex and dashes. */
  idPrefix?: string
  /** Only orders whose latest chat message is the buyer's (waiting for a reply). */
  buyerLast?: boolean
  after?: string
  limit: number
}

const cursorOf = (order: StoredOrder) => Buffer.from(`${order.createdAt}|${order.id}`).toString('base64url')

function parseCursor (after: string): { createdAt: string, id: string } {
  const [createdAt, id, extra] = Buffer.from(after, 'base64url').toString().split('|')
  if (extra !== undefined || !isUuid(id ?? '') || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(createdAt ?? '')) {
    throw validationError('after must be a cursor of an earlier page.',
      [{ path: 'querystring.after', message: 'is not a cursor' }])
  }
  return { createdAt, id }
}

/**
 * One walk of orders_visible_shop_status_created_idx per status, newest first,
 * each stopped after limit + 1 rows, merged: the page and whether more follow.
 */
const listSql = `select ${orderResponseColumns('q')} from unnest($2::text[]) s(status) cross join lateral (
    select * from orders where shop_id = $1 and status = s.status and external
      and ($3::uuid is null or product_id = $3::uuid)
      and ($4::timestamptz is null or created_at >= $4::timestamptz)
      and ($5::timestamptz is null or created_at < $5::timestamptz)
      and ($6::text is null or id::text like $6::text || '%')
      and ($7::timestamptz is null or (created_at, id) < ($7::timestamptz, $8::uuid))
      and (not $10::boolean or exists (select 1 from order_messages m
        where m.order_id = orders.id and m.created_at = orders.last_message_at and m.sender_role = 'buyer'))
    order by created_at desc, id desc limit $9::int) q
  order by q.created_at desc, q.id desc limit $9::int`

/** A page of the shop's visible orders, newest first; `nextCursor` null at the end. */
export async function listPortalOrders (
  db: Queryable, shopId: string, filter: PortalOrderFilter
): Promise<{ orders: StoredOrder[], nextCursor: string | null }> {
  const cursor = filter.after === undefined ? null : parseCursor(filter.after)
  const rows = await run<StoredOrder>(db, listSql, [
    shopId, `{${filter.statuses.join(',')}}`, filter.productId ?? null, filter.from?.toISOString() ?? null,
    filter.to?.toISOString() ?? null,
    filter.idPrefix ?? null, cursor?.createdAt ?? null, cursor?.id ?? null, filter.limit + 1,
    filter.buyerLast === true
  ])
  const page = rows.slice(0, filter.limit)
  return { orders: page, nextCursor: rows.length > filter.limit ? cursorOf(page[page.length - 1]) : null }
}

export interface OrderEvent { seq: number, type: string, createdAt: string }

/**
 * The events of the shop's feed about the order, oldest first: those carrying the
 * order, its id, or a claim on it, written since the order was (the shop's feed
 * from that seq on, events_shop_seq_idx).
 */
export function listOrderEvents (db: Queryable, shopId: string, orderId: string): Promise<OrderEvent[]> {
  return run<OrderEvent>(db, `select e.seq::int as seq, e.type, ${isoTime('e.created_at')} as "createdAt"
    from events e
    where e.shop_id = $1 and e.created_at >= (select created_at from orders where id = $2)
      and $2::text in (e.data->'order'->>'id', e.data->>'orderId', e.data->'claim'->>'orderId')
    order by e.seq limit 200`, [shopId, orderId])
}

/** The order's claims, oldest first (claims_order_idx). */
export async function listOrderClaims (db: Queryable, shopId: string, orderId: string): Promise<Claim[]> {
  const rows = await run<ClaimRow>(db, `select ${claimColumns()} from claims c join orders o on o.id = c.order_id
    where c.order_id = $1 and c.shop_id = $2 and o.external order by c.created_at, c.id`, [orderId, shopId])
  return rows.map(claimView)
}

/** The shop's products with automation (whose orders /v1 shows), by title: the list's product filter. */
export function listAutomatedProducts (db: Queryable, shopId: string): Promise<Array<{ id: string, title: string }>> {
  return run<{ id: string, title: string }>(db,
    'select id, title from products where shop_id = $1 and external order by title, id', [shopId])
}
