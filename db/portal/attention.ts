// The portal's Needs attention page (docs/portal.md): what needs the seller,
// counted in one round trip, each count from an index or a small table:
// - waiting: paid visible orders (order_counts, a row per product and status);
// - claims: open or escalated (claims_one_active_idx is per order, so the shop's
//   active claims are read through claims_shop_list_idx), with the nearest respondBy;
// - unanswered: visible orders whose latest chat message is the buyer's (the
//   message at orders.last_message_at, order_messages_order_created_idx): a walk
//   of the shop's visible orders (orders_visible_shop_status_created_idx), one
//   index probe for each that has a chat;
// - lowStock: products with autoDelivery `stock` and a threshold above 0 whose
//   available count (stock_counts) is at or below it;
// - failingWebhooks: event endpoints whose most recent attempt (of an event or a test)
//   failed: the queue keeps `failing_since` set from a failed attempt until a success
//   (db/webhooks/queue.ts), so it is a column of the shop's few endpoints;
// - deliveryFailing: the newest attempted request to the delivery endpoint
//   (webhook_deliveries_endpoint_idx) failed its last attempt.
import type { Queryable } from '../core/client.js'
import { run } from '../core/sql.js'
import { isoTime } from '../core/time.js'

export interface AttentionCounts {
  waiting: number
  claims: number
  nearestRespondBy: string | null
  unanswered: number
  lowStock: number
  failingWebhooks: number
  /** Those endpoints, failing longest first (a shop has at most 10). */
  failingEndpoints: Array<{ id: string, url: string, failingSince: string }>
  deliveryFailing: boolean
}

/** An attempt that failed: it was made and got no 2xx. */
const FAILED = '(d.last_error is not null or d.last_status_code not between 200 and 299)'

const countsSql = `select
  (select coalesce(sum(n.count), 0)::int from order_counts n join products p on p.id = n.product_id and p.external
    where n.shop_id = $1 and n.status = 'paid') as waiting,
  (select count(*)::int from claims c join orders o on o.id = c.order_id and o.external
    where c.shop_id = $1 and c.status in ('open', 'escalated')) as claims,
  (select ${isoTime('min(c.respond_by)')} from claims c join orders o on o.id = c.order_id and o.external
    where c.shop_id = $1 and c.status = 'open') as "nearestRespondBy",
  (select count(*)::int from orders o cross join lateral (
      select m.sender_role from order_messages m where m.order_id = o.id order by m.created_at desc limit 1) m
    where o.shop_id = $1 and o.external and o.last_message_at is not null and m.sender_role = 'buyer') as unanswered,
  (select count(*)::int from products p
    where p.shop_id = $1 and p.auto_delivery = 'stock' and p.low_stock_threshold > 0
      and (select coalesce(sum(c.available), 0) from stock_counts c where c.product_id = p.id)
        <= p.low_stock_threshold) as "lowStock",
  (select count(*)::int from webhook_endpoints w
    where w.shop_id = $1 and w.purpose = 'events' and w.failing_since is not null) as "failingWebhooks",
  (select coalesce(json_agg(json_build_object('id', w.id, 'url', w.url,
      'failingSince', ${isoTime('w.failing_since')}) order by w.failing_since), '[]'::json) from webhook_endpoints w
    where w.shop_id = $1 and w.purpose = 'events' and w.failing_since is not null) as "failingEndpoints",
  exists (select 1 from webhook_endpoints w cross join lateral (
      select d.last_error, d.last_status_code from webhook_deliveries d
      where d.endpoint_id = w.id and d.last_attempt_at is not null
      order by d.created_at desc, d.id desc limit 1) d
    where w.shop_id = $1 and w.purpose = 'delivery' and ${FAILED}) as "deliveryFailing"`

export async function attentionCounts (db: Queryable, shopId: string): Promise<AttentionCounts> {
  const [row] = await run<AttentionCounts>(db, countsSql, [shopId])
  return row
}

/** The navigation's badges: the claims waiting for an answer and the paid orders waiting. */
export async function badgeCounts (db: Queryable, shopId: string): Promise<{ claims: number, waiting: number }> {
  const [row] = await run<{ claims: number, waiting: number }>(db, `select
    (select coalesce(sum(n.count), 0)::int from order_counts n join products p on p.id = n.product_id and p.external
      where n.shop_id = $1 and n.status = 'paid') as waiting,
    (select count(*)::int from claims c join orders o on o.id = c.order_id and o.external
      where c.shop_id = $1 and c.status in ('open', 'escalated')) as claims`, [shopId])
  return row
}
