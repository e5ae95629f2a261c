// The statements of the service's own fulfilment of paid orders (the transition
// `autoDeliver` of domain/order-transitions.ts; the orchestration is
// services/orders/fulfilment.ts): a product's waiting orders read under their
// locks and fulfilled from stock takes, an order fulfilled with its delivery
// endpoint's answer (docs/delivery-endpoint.md), and `order.delivery_failed`
// when a delivery request ends without values. A purchase fulfilled from stock
// is created delivered by db/orders/purchase.ts.
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Tx } from '../core/client.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { appendEventRowsCtes } from '../events/statements.js'
import { run } from '../core/sql.js'
import type { StockTake } from '../stock/take.js'
import { deliveredValuesParam, orderJson } from './row.js'
import { transitionFrom, transitionSet } from './transition-sql.js'

export interface WaitingOrder { id: string, quantity: number, fieldValues: Array<{ fieldId: string, value: string }> }

/** The product's paid orders never taken, oldest first, locked (FOR UPDATE). Needs the product's lock. */
export function lockWaitingOrders (tx: Tx, productId: string): Promise<WaitingOrder[]> {
  return run<WaitingOrder>(tx, `select id, quantity, field_values as "fieldValues" from orders
    where product_id = $1 and status = 'paid' order by created_at, id for update`, [productId])
}

/** The options of the select field `fieldId`, in their order. */
export function fieldOptions (tx: Tx, fieldId: string): Promise<Array<{ id: string, label: string }>> {
  return run<{ id: string, label: string }>(tx,
    'select id, label from product_field_options where field_id = $1 order by position', [fieldId])
}

/**
 * One statement: the waiting orders become delivered (`autoDeliver`), each with
 * its `order.delivered` event (visible orders only) followed by its signals.
 */
export async function fulfilWaitingOrders (
  tx: Tx, cipher: StockCipher, shopId: string, takes: readonly StockTake[]
): Promise<void> {
  const fills = takes.map((take) =>
    `{"id":${JSON.stringify(take.orderId)},"values":${deliveredValuesParam(cipher, take.orderId, take.values)}}`)
  const feed = takes.flatMap((take) => [{ order: take.orderId }, ...take.signals])
  await run(tx, `with f as (
      select (x->>'id')::uuid as id, x->'values' as vals from jsonb_array_elements($2::text::jsonb) x
    ), o as (
      update orders set ${transitionSet('autoDeliver', 'f.vals')}
      from f where orders.id = f.id and ${transitionFrom('autoDeliver', 'orders')}
      returning orders.*
    ), spec as (
      select x.n, (x.e->>'order')::uuid as order_id, x.e->>'type' as type, x.e->'data' as data
      from jsonb_array_elements($3::text::jsonb) with ordinality x(e, n)
    ), evs as (
      select spec.n as ord, coalesce(spec.type, 'order.delivered') as type,
        case when spec.order_id is null then spec.data else jsonb_build_object('order', ${orderJson('o')}) end as data
      from spec left join o on o.id = spec.order_id
      where spec.order_id is null or o.external
    ), ${appendEventRowsCtes('evs', '$1')}
    select count(*)::int as filled from o`, [shopId, `[${fills.join(',')}]`, JSON.stringify(feed)])
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
}

/**
 * One statement: the paid order `orderId` of shop `shopId` delivered with
 * `values` (the delivery endpoint's answer, `autoDeliver`), with its
 * `order.delivered` event when visible; the values sealed by `cipher`
 * (db/orders/row.ts). Returns how long after the purchase it
 * came; undefined when the order is no longer paid (nothing changed).
 */
export async function fulfilFromEndpoint (
  tx: Tx, cipher: StockCipher | null, shopId: string, orderId: string, values: readonly string[]
): Promise<{ sincePurchaseMs: number } | undefined> {
  const [delivered] = await run<{ sincePurchaseMs: number }>(tx, `with o as (
      update orders set ${transitionSet('autoDeliver', '$2::text::jsonb')}
      where id = $1 and ${transitionFrom('autoDeliver')}
      returning orders.*
    ), evs as (
      select 1 as ord, 'order.delivered' as type, jsonb_build_object('order', ${orderJson('o')}) as data
      from o where o.external
    ), ${appendEventRowsCtes('evs', '$3')}
    select (extract(epoch from now() - o.created_at) * 1000)::float8 as "sincePurchaseMs" from o`,
  [orderId, deliveredValuesParam(cipher, orderId, values), shopId])
  if (!delivered) return undefined
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
  return { sincePurchaseMs: Number(delivered.sincePurchaseMs) }
}

/** order.delivery_failed {order, reason} for each of `orderIds` (visible orders only), in one statement. */
export async function appendDeliveryFailedEvents (
  tx: Tx, shopId: string, orderIds: string[], reason: string
): Promise<void> {
  if (orderIds.length === 0) return
  await run(tx, `with o as (select * from orders
      where id in (select jsonb_array_elements_text($2::text::jsonb)::uuid) and external),
    evs as (
      select row_number() over (order by o.created_at, o.id) as ord, 'order.delivery_failed' as type,
        jsonb_build_object('order', ${orderJson('o')}, 'reason', $3::text) as data from o
    ), ${appendEventRowsCtes('evs', '$1')}
    select 1`, [shopId, JSON.stringify(orderIds), reason])
  notifyAfterCommit(tx, EVENTS_CHANNEL, shopId)
}
