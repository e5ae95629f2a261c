// The service's own delivery of paid orders (the transition `autoDeliver` of
// domain/order-transitions.ts): the waiting orders of a product filled from
// stock (after an upload, a restock, or switching `autoDelivery` to `stock`,
// docs/stock.md), and an order delivered with its delivery endpoint's answer
// (docs/delivery-endpoint.md). A purchase delivered from stock is created
// delivered by db/orders/purchase.ts.
import { recordedOptionKey, optionsByLabel } from '../../domain/stock-rules.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Tx } from '../core/client.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { appendEventRowsCtes } from '../events/statements.js'
import { run } from '../core/sql.js'
import { deactivateIfEmpty, takeStock, type StockDemand, type StockProduct, type StockTake } from '../stock/take.js'
import { deliveredValuesParam, orderJson } from './row.js'
import { transitionFrom, transitionSet } from './transition-sql.js'

interface WaitingOrder { id: string, quantity: number, fieldValues: Array<{ fieldId: string, value: string }> }

/**
 * Fills the product's waiting orders (paid, never taken), oldest first, each in
 * full or not at all, and records their deliveries with their events; returns
 * how many were filled. Only with `autoDelivery: stock`. Needs the product's lock.
 */
export async function fillWaitingOrders (tx: Tx, cipher: StockCipher, product: StockProduct): Promise<number> {
  if (product.autoDelivery !== 'stock') return 0
  const waiting = await run<WaitingOrder>(tx, `select id, quantity, field_values as "fieldValues" from orders
    where product_id = $1 and status = 'paid' order by created_at, id for update`, [product.id])
  if (waiting.length === 0) return 0
  const options = product.optionFieldId === null
    ? new Map<string, string>()
    : optionsByLabel(await run<{ id: string, label: string }>(tx,
      'select id, label from product_field_options where field_id = $1 order by position', [product.optionFieldId]))
  const demands: StockDemand[] = []
  for (const order of waiting) {
    const optionKey = recordedOptionKey(product.optionFieldId, order.fieldValues, options)
    if (optionKey !== null) demands.push({ orderId: order.id, optionKey, quantity: order.quantity })
  }
  const takes = await takeStock(tx, cipher, product, demands)
  if (takes.length === 0) return 0
  await deactivateIfEmpty(tx, product)
  await deliverWaitingOrders(tx, cipher, product.shopId, takes)
  return takes.length
}

/**
 * One statement: the waiting orders become delivered (`autoDeliver`), each with
 * its `order.delivered` event (visible orders only) followed by its signals.
 */
async function deliverWaitingOrders (
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
export async function deliverFromEndpoint (
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
