// The preview of a rule's text (docs/chat-rules.md): rendered by the very
// function that renders it when a rule fires (chat_rule_text,
// db/chat-rules/triggers.sql; a text without placeholders, which a firing takes
// as it is, renders to itself), for one order the shop sees through /v1. Posts nothing.
import { ApiError, notFound } from '../../domain/errors.js'
import { claimPlaceholders, type TemplateSegment } from '../../domain/chat-rule-template.js'
import type { Queryable } from '../core/client.js'
import { run } from '../core/sql.js'
import { isoTime } from '../core/time.js'

/**
 * `template` rendered for order `orderId` of the shop, the claim placeholders
 * from its latest claim: 404 ORDER_NOT_FOUND for an order /v1 does not show, 409
 * ORDER_INVALID_STATUS when the text needs a claim and the order has none.
 */
export async function previewChatRule (
  db: Queryable, shopId: string, orderId: string, template: TemplateSegment[]
): Promise<string> {
  const [row] = await run<{ text: string, claimed: boolean }>(db, `
    select chat_rule_text($3::text::jsonb,
        chat_rule_values(o.id, o.product_title, o.quantity, o.amount) || coalesce(c.vals, '{}'::jsonb),
        o.field_values) as text,
      c.vals is not null as claimed
    from orders o
    left join lateral (
      select jsonb_build_object('claimReason', reason, 'claimRespondBy', ${isoTime('respond_by')}) as vals
      from claims where order_id = o.id order by created_at desc limit 1
    ) c on true
    where o.id = $1 and o.shop_id = $2 and o.external`, [orderId, shopId, JSON.stringify(template)])
  if (!row) throw notFound('Order')
  const needsClaim = template.some((segment) =>
    'placeholder' in segment && (claimPlaceholders as readonly string[]).includes(segment.placeholder))
  if (needsClaim && !row.claimed) {
    throw new ApiError('ORDER_INVALID_STATUS', 'The order has no claim to fill the claim placeholders from.')
  }
  return row.text
}

/** The shop's most recent orders visible through /v1, for the portal's preview to choose from. */
export function recentOrders (db: Queryable, shopId: string, limit = 10) {
  return run<{ id: string, productTitle: string, createdAt: string }>(db, `
    select id, product_title as "productTitle", ${isoTime('created_at')} as "createdAt" from orders
    where shop_id = $1 and external order by created_at desc limit $2::int`, [shopId, limit])
}
