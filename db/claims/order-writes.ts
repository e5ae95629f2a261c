// The order statements of claims (docs/claims.md), beside the claim's own: the
// claimed order read under its row lock, its delivered values replaced
// (`order.updated`), and the claim's refund — the `refund` row of
// domain/order-transitions.ts, with a `debit` row when the order was completed
// (`order.cancelled`). Each runs inside the claim's transaction
// (services/claims/settle.ts), after the claim's and the product's locks, so the
// lock order is claim, product, order, shop.
import { orderTransitions, type OrderStatus } from '../../domain/order-transitions.js'
import { openValues, type StoredValues } from '../../domain/delivered-values.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Tx } from '../core/client.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { runPrepared } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'
import { appendEventCtes, appendEventRowsCtes, type EventOutcome } from '../events/statements.js'
import { messageText } from '../../domain/message-rules.js'
import { systemMessageText, type SystemMessage } from '../../domain/system-messages.js'
import { messageColumns, nextMessageTime } from '../orders/messages.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { deliveredValuesParam, orderResponseColumns, type StoredOrder } from '../orders/row.js'

/** The claimed order as the claim's rules read it, under its row lock. */
export interface ClaimedOrder {
  id: string
  shopId: string
  productId: string
  status: OrderStatus
  external: boolean
  amount: number
  /** As stored: sealed (claimedValues opens them). */
  deliveredValues: StoredValues
  deliveredAt: string | null
  fieldValues: Array<{ fieldId: string, label: string, value: string }>
  /** The database's clock, so every instance judges windows alike. */
  now: string
}

/** Locks the order's row (FOR NO KEY UPDATE) and reads it; undefined when there is none. */
export async function lockClaimedOrder (tx: Tx, orderId: string): Promise<ClaimedOrder | undefined> {
  const [row] = await runPrepared<ClaimedOrder>(tx,
    `select id, shop_id as "shopId", product_id as "productId", status, external,
      amount::float8 as amount, delivered_values as "deliveredValues", ${isoTime('delivered_at')} as "deliveredAt",
      field_values as "fieldValues", ${isoTime(NOW_MS)} as now
    from orders where id = $1 for no key update`, [orderId])
  return row
}

/** The claimed order's delivered values, opened (a StockKeyError when the keys at hand cannot). */
export const claimedValues = (order: ClaimedOrder, cipher: StockCipher | null): string[] =>
  openValues(cipher, order.id, order.deliveredValues)

function notify (tx: Tx, outcome: EventOutcome | undefined) {
  if (outcome?.eventShopId) notifyAfterCommit(tx, EVENTS_CHANNEL, outcome.eventShopId)
}

/**
 * The replacement as one statement: the order's delivered values become $2
 * (status unchanged), the chat gets the `system` message $3 (its time as
 * db/orders/messages.ts gives it), and the feed `order.updated`, the claim's
 * event $4 (`claim.resolved`, its data made by the caller) and
 * `message.created`, in that order, under one bump of the shop's seq.
 */
const replaceValuesSql = `with o as (
    update orders set delivered_values = $2::text::jsonb, updated_at = ${NOW_MS},
      last_message_at = ${nextMessageTime('orders')}
    where id = $1 returning *
  ), r as (
    select ${orderResponseColumns('o')} from o
  ), m as (
    insert into order_messages (order_id, sender_role, text, created_at, meaning)
    select id, 'system', $3, last_message_at, $5::text::jsonb from o
    returning id, sender_role, text, created_at, rule_id
  ), mr as (
    select ${messageColumns('m')} from m
  ), evs as (
    select 1 as ord, 'order.updated' as type, jsonb_build_object('order', to_jsonb(r)) as data
    from o, r where o.external
    union all select 2, 'claim.resolved', $4::text::jsonb from o where o.external
    union all select 3, 'message.created', jsonb_build_object('orderId', o.id, 'message', to_jsonb(mr)) from o, mr
    where o.external
  ), ${appendEventRowsCtes('evs', '(select shop_id from o)')}
  select r.*, case when o.external then o.shop_id end as "eventShopId" from r, o`

/**
 * What the chat and the feed get with a replacement: the `system` message, and the
 * settled claim as the API shows it.
 */
export interface ReplacementNews { message: SystemMessage, claim: object }

/**
 * The order's delivered values become `values` (sealed by `cipher`:
 * db/orders/row.ts), with the chat's `system` message, and `order.updated`,
 * `claim.resolved` (`{claim}`) and `message.created`: one statement, sent at
 * once. Needs the order's lock.
 */
export async function replaceOrderValues (
  tx: Tx, orderId: string, values: readonly string[], cipher: StockCipher | null, news: ReplacementNews
): Promise<StoredOrder> {
  const [row] = await runPrepared<StoredOrder & EventOutcome>(tx, replaceValuesSql,
    [orderId, deliveredValuesParam(cipher, orderId, values), messageText(systemMessageText(news.message)),
      JSON.stringify({ claim: news.claim }), JSON.stringify(news.message)])
  const { eventShopId, ...order } = row
  notify(tx, { eventShopId })
  return order
}

const refund = orderTransitions.refund
const quoted = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ')

/**
 * The claim's refund as one statement: the order becomes cancelled, the
 * ledger gets its `refund` row and, from a completed order, a `debit` row (the
 * shop's credit taken back), and the feed `order.cancelled`. Undefined when the
 * order's status does not allow it. Needs the order's lock.
 */
export async function refundClaimedOrder (tx: Tx, orderId: string): Promise<StoredOrder | undefined> {
  const [row] = await runPrepared<StoredOrder & EventOutcome>(tx, `with p as (
      select status from orders where id = $1
    ), o as (
      update orders set status = '${refund.to}', cancelled_at = ${NOW_MS}, updated_at = ${NOW_MS}
      where id = $1 and status in (${quoted(refund.from)}) returning *
    ), d as (
      insert into ledger_entries (shop_id, order_id, kind, amount)
      select o.shop_id, o.id, 'debit', o.amount from o, p where p.status in (${quoted(refund.debitFrom ?? [])})
    ), l as (
      insert into ledger_entries (shop_id, order_id, kind, amount) select shop_id, id, '${refund.ledger}', amount from o
    ), r as (
      select ${orderResponseColumns('o')} from o
    ), ${appendEventCtes({
      source: 'o',
      condition: 'o.external',
      type: 'order.cancelled',
      data: "jsonb_build_object('order', to_jsonb(r))",
      from: 'r'
    })}
    select r.*, case when o.external then o.shop_id end as "eventShopId" from r, o`, [orderId])
  if (!row) return undefined
  const { eventShopId, ...order } = row
  notify(tx, { eventShopId })
  return order
}
