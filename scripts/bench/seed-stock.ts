// The stock database's seeds (docs/performance.md, "Seeding"), beside seed.ts
// and like it one of the only modules of scripts/bench/ that import the
// service's own: products with `autoDelivery: stock` and their encrypted items
// (the stock scenario), orders delivered from stock with an open claim each
// (claims), and shops whose feed holds `order.delivered` events carrying sealed
// values (feed). Values are encrypted and sealed exactly as the service does.
import { randomBytes, randomUUID } from 'node:crypto'
import postgres from 'postgres'
import { appendEventRowsCtes } from '../../db/events/statements.js'
import { orderJson } from '../../db/orders/row.js'
import { NO_OPTION } from '../../domain/stock-rules.js'
import { displayPrefix, generateApiKeySecret, hashApiKey } from '../../domain/api-key.js'
import { StockCipher } from '../../domain/stock-cipher.js'

type Sql = postgres.Sql

/** A product with `autoDelivery: stock` of shop `shop` (specs may share one), and how many items it holds. */
export interface StockProductSpec { shop: string, items: number }
export interface StockProduct { shopId: string, productId: string }

/** Inserts `count` items of `productId`, encrypted as the service stores them, in chunks of set-based inserts. */
async function insertStockItems (sql: Sql, cipher: StockCipher, shopId: string, productId: string, count: number) {
  const chunk = 20_000
  for (let start = 0; start < count; start += chunk) {
    const rows = Array.from({ length: Math.min(chunk, count - start) }, (_, i) => {
      const value = `SEED-${start + i}-${randomBytes(6).toString('hex')}`
      const e = cipher.encrypt(value, productId)
      return { c: e.ciphertext.toString('base64'), n: e.nonce.toString('base64'), h: cipher.hash(value).toString('base64'), p: value.slice(0, 4) }
    })
    await sql.unsafe(`insert into stock_items (shop_id, product_id, option_key, ciphertext, nonce, key_id, value_hash, preview)
      select $1, $2, $3, decode(x->>'c', 'base64'), decode(x->>'n', 'base64'), $4, decode(x->>'h', 'base64'), x->>'p'
      from jsonb_array_elements($5::text::jsonb) with ordinality t(x, ord) order by ord`,
    [shopId, productId, NO_OPTION, cipher.keyId, JSON.stringify(rows)])
  }
  await sql.unsafe(`insert into stock_counts (product_id, option_key, available) values ($1, $2, $3)
    on conflict (product_id, option_key) do update set available = stock_counts.available + excluded.available`, [productId, NO_OPTION, count])
}

/**
 * One shop per name, one external product per spec at 10.00
 * with `autoDelivery: stock`, no fields, and `items` items encrypted under
 * `stockKey` (the service's VALUES_ENCRYPTION_KEY).
 */
export async function seedStock (url: string, stockKey: Buffer, specs: StockProductSpec[]): Promise<StockProduct[]> {
  const cipher = new StockCipher(stockKey)
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [{ id: categoryId }] = await sql<{ id: string }[]>`select id from categories order by path_en limit 1`
    const products: StockProduct[] = []
    const shops = new Map<string, string>()
    for (const spec of specs) {
      let shopId = shops.get(spec.shop)
      if (shopId === undefined) {
        ;[{ id: shopId }] = await sql<{ id: string }[]>`insert into shops (name) values (${spec.shop}) returning id`
        shops.set(spec.shop, shopId)
      }
      const [{ id: productId }] = await sql<{ id: string }[]>`insert into products (shop_id, category_id, title, description, active,
          external, price, employee_reward_type, employee_reward_value, auto_delivery)
        values (${shopId}, ${categoryId}, ${`Key ${products.length} of ${spec.shop}`}, '', true, true, 10, 'percent', 0, 'stock') returning id`
      await insertStockItems(sql, cipher, shopId, productId, spec.items)
      products.push({ shopId, productId })
    }
    await sql`vacuum analyze`
    return products
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** A claim the seller's key of its shop can answer. */
export interface ClaimTarget { claimId: string, secret: string }

/**
 * For the claims scenario: a stock product per shop (seedStock) with
 * `perShop` orders delivered from its stock (one value each, sealed as the
 * service seals them, the item numbered with its position), each with an open
 * claim reporting that value, `perShop` items left available for the
 * replacements, and a seller key per shop. The claims come shops interleaved.
 */
export async function seedClaims (url: string, stockKey: Buffer, shops: string[], perShop: number): Promise<ClaimTarget[]> {
  const products = await seedStock(url, stockKey, shops.map((shop) => ({ shop, items: 2 * perShop })))
  const cipher = new StockCipher(stockKey)
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const perProduct: ClaimTarget[][] = []
    for (const { shopId, productId } of products) {
      const secret = generateApiKeySecret()
      await sql`insert into api_keys (shop_id, name, key_hash, prefix) values (${shopId}, 'bench', ${hashApiKey(secret)}, ${displayPrefix(secret)})`
      const orders = Array.from({ length: perShop }, (_, n) => {
        const id = randomUUID()
        const { keyId, box } = cipher.seal(JSON.stringify([`CLAIMED-${n}`]), id)
        return { id, v: { keyId, sealed: box.toString('base64') } }
      })
      const claims = await sql.unsafe<Array<{ id: string }>>(`with x as (
          select (x->>'id')::uuid as id, x->'v' as v, ord from jsonb_array_elements($3::text::jsonb) with ordinality t(x, ord)
        ), o as (
          insert into orders (id, shop_id, product_id, product_title, quantity, amount, field_values, status, assignee_type,
            delivered_values, created_at, taken_at, delivered_at, updated_at)
          select id, $1, $2, 'Claimed key', 1, 10, '[]', 'awaiting_confirmation', 'auto', v, now(), now(), now(), now() from x
        ), i as (
          select id, row_number() over (order by position) as ord from stock_items where product_id = $2 order by position limit $4
        ), d as (
          update stock_items s set status = 'delivered', order_id = x.id, delivered_at = now(), delivered_index = 0
          from i join x using (ord) where s.id = i.id
        ), c as (
          insert into claims (shop_id, order_id, product_id, reason, text, value_indexes, respond_by)
          select $1, id, $2, 'not_working', 'The key does not activate.', '[0]', now() + interval '7 days' from x returning id
        ) select id from c`, [shopId, productId, JSON.stringify(orders), perShop])
      await sql`update stock_counts set available = available - ${perShop}, delivered = delivered + ${perShop} where product_id = ${productId}`
      perProduct.push(claims.map((c) => ({ claimId: c.id, secret })))
    }
    await sql`vacuum analyze`
    return Array.from({ length: perShop }, (_, n) => perProduct.map((claims) => claims[n])).flat()
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** A shop's feed to read: its seller key. */
export interface FeedReader { secret: string }

/**
 * For the feed scenario: `shops` shops (one external product each, a seller
 * key) whose feeds hold `perShop` `order.delivered` events, each carrying its
 * order (awaiting confirmation, `values` values sealed under `stockKey` with
 * the order id, as db/orders/row.ts stores them) in the representation the
 * service writes into its events (orderJson). With `sealed` false the values are
 * stored as a plain list instead, as every order was before they were sealed.
 */
export async function seedFeed (
  url: string, stockKey: Buffer, shops: number, perShop: number, values: number, sealed = true
): Promise<FeedReader[]> {
  const cipher = new StockCipher(stockKey)
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [{ id: categoryId }] = await sql<{ id: string }[]>`select id from categories order by path_en limit 1`
    const readers: FeedReader[] = []
    for (let s = 0; s < shops; s++) {
      const [{ id: shopId }] = await sql<{ id: string }[]>`insert into shops (name) values (${`Feed ${sealed ? '' : 'clear '}${s}`}) returning id`
      const [{ id: productId }] = await sql<{ id: string }[]>`insert into products (shop_id, category_id, title, description,
          active, external, price, employee_reward_type, employee_reward_value)
        values (${shopId}, ${categoryId}, 'Gift card', '', true, true, 10, 'percent', 0) returning id`
      const secret = generateApiKeySecret()
      await sql`insert into api_keys (shop_id, name, key_hash, prefix) values (${shopId}, 'bench', ${hashApiKey(secret)}, ${displayPrefix(secret)})`
      const orders = Array.from({ length: perShop }, (_, n) => {
        const id = randomUUID()
        const list = Array.from({ length: values }, (_, v) => `GIFT-${s}-${n}-${v}-${randomBytes(6).toString('hex')}`)
        if (!sealed) return { id, v: list }
        const { keyId, box } = cipher.seal(JSON.stringify(list), id)
        return { id, v: { keyId, sealed: box.toString('base64') } }
      })
      await sql.unsafe(`with x as (
          select (x->>'id')::uuid as id, x->'v' as v, ord from jsonb_array_elements($3::text::jsonb) with ordinality t(x, ord)
        ), o as (
          insert into orders (id, shop_id, product_id, product_title, quantity, amount, field_values, status, assignee_type,
            delivered_values, created_at, taken_at, delivered_at, updated_at)
          select id, $1, $2, 'Gift card', ${values}, 10 * ${values}, '[]', 'awaiting_confirmation', 'auto', v,
            now() - interval '1 hour' + ord * interval '1 second', now(), now(), now() from x
          returning *
        ), evs as (
          select x.ord, 'order.delivered' as type, jsonb_build_object('order', ${orderJson('o')}) as data from o join x using (id)
        ), ${appendEventRowsCtes('evs', '$1::uuid')}
        select 1`, [shopId, productId, JSON.stringify(orders)])
      readers.push({ secret })
    }
    await sql`vacuum analyze`
    return readers
  } finally {
    await sql.end({ timeout: 5 })
  }
}
