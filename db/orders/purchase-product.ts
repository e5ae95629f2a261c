// The product as a purchase needs it (db/orders/orders.ts createPurchase): its sale
// state, its price and currency rate, its buyer-input fields with their options
// in position order, and its stock settings, read by one prepared statement
// (db/core/sql.ts). The fields come back as one JSON array built in SQL, with
// decimals as strings, as domain/purchase.ts prices them.
import type { PurchaseField } from '../../domain/purchase.js'
import type { Queryable } from '../core/client.js'
import { runPrepared } from '../core/sql.js'

export interface PurchaseProductRow {
  id: string
  shopId: string
  title: string
  active: boolean
  archived: boolean
  price: string
  /** Rubles per unit of the product's currency; null for ruble prices. */
  rate: string | null
  autoDelivery: string
  stockOptionFieldId: string | null
  fields: PurchaseField[]
}

const purchaseProductSql = `select p.id, p.shop_id as "shopId", p.title, p.active, p.archived, p.price::text as price,
    (select r.rate::text from currency_rates r where r.id = p.currency_rate_id) as rate,
    p.auto_delivery as "autoDelivery", p.stock_option_field_id as "stockOptionFieldId",
    coalesce((
      select jsonb_agg(jsonb_build_object('id', f.id, 'type', f.type, 'label', f.label, 'required', f.required,
        'multiple', f.multiple, 'valueMin', f.value_min::text, 'valueMax', f.value_max::text,
        'options', coalesce((
          select jsonb_agg(jsonb_build_object('id', o.id, 'label', o.label, 'price', o.price::text) order by o.position)
          from product_field_options o where o.field_id = f.id
        ), '[]'::jsonb)) order by f.position)
      from product_fields f where f.product_id = p.id
    ), '[]'::jsonb) as fields
  from products p where p.id = $1`

/**
 * The product `productId` as a purchase reads it, on the database or in a transaction;
 * undefined when there is none.
 */
export async function readPurchaseProduct (db: Queryable, productId: string): Promise<PurchaseProductRow | undefined> {
  const [row] = await runPrepared<PurchaseProductRow>(db, purchaseProductSql, [productId])
  return row
}
