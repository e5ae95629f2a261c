// The shop's delivery endpoint (docs/delivery-endpoint.md): one a shop, kept as
// a row of webhook_endpoints with purpose `delivery`, so the webhook worker's
// lease, signer and sender serve it as they serve webhook endpoints; the
// webhook routes, their 10-a-shop limit and the events' fan-out leave it out.
import { randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { fromKopecks, toKopecks, toRubles } from '../../domain/money.js'
import { generateWebhookSecret } from '../../domain/webhook-signing.js'
import type { Queryable, Tx } from '../core/client.js'
import { run } from '../core/sql.js'
import { nowMs } from '../core/time.js'
import { rotatedSecret } from '../webhooks/endpoints.js'
import { webhookEndpoints } from '../webhooks/tables.js'

export interface DeliveryEndpointRow { url: string, createdAt: Date, updatedAt: Date }

const columns = {
  url: webhookEndpoints.url,
  createdAt: webhookEndpoints.createdAt,
  updatedAt: webhookEndpoints.updatedAt
}
const ofShop = (shopId: string) => and(eq(webhookEndpoints.shopId, shopId), eq(webhookEndpoints.purpose, 'delivery'))

export async function findDeliveryEndpoint (db: Queryable, shopId: string): Promise<DeliveryEndpointRow | undefined> {
  const [row] = await db.select(columns).from(webhookEndpoints).where(ofShop(shopId))
  return row
}

/** The URL and the secrets that sign now (the current, and the previous during its 24 hours), for the test call. */
export async function deliveryEndpointTarget (
  db: Queryable, shopId: string
): Promise<{ url: string, secrets: string[] } | undefined> {
  const [row] = await db.select({
    url: webhookEndpoints.url,
    secret: webhookEndpoints.secret,
    previousSecret: sql<string | null>`case when ${webhookEndpoints.previousSecretExpiresAt} > now()
      then ${webhookEndpoints.previousSecret} end`
  }).from(webhookEndpoints).where(ofShop(shopId))
  return row && { url: row.url, secrets: row.previousSecret === null ? [row.secret] : [row.secret, row.previousSecret] }
}

/**
 * Creates the endpoint or replaces its URL (from the next attempt of pending
 * requests on). `secret` only when it was created.
 */
export async function putDeliveryEndpoint (
  db: Queryable, shopId: string, url: string
): Promise<{ endpoint: DeliveryEndpointRow, secret: string | null }> {
  const secret = generateWebhookSecret()
  const [row] = await db.insert(webhookEndpoints)
    .values({ shopId, url, secret, purpose: 'delivery' })
    .onConflictDoUpdate({
      target: webhookEndpoints.shopId,
      targetWhere: sql`purpose = 'delivery'`,
      set: { url, updatedAt: nowMs }
    })
    .returning({ ...columns, created: sql<boolean>`xmax = 0` })
  const { created, ...endpoint } = row
  return { endpoint, secret: created ? secret : null }
}

/**
 * The shop's endpoint locked for its deletion, with its id; undefined when there is none.
 */
export async function lockDeliveryEndpoint (
  tx: Tx, shopId: string
): Promise<(DeliveryEndpointRow & { id: string }) | undefined> {
  const [endpoint] = await tx.select({
    id: webhookEndpoints.id,
    ...columns
  }).from(webhookEndpoints).where(ofShop(shopId)).for('update')
  return endpoint
}

/** Removes the endpoint's row (its requests stay in their orders' logs). */
export async function removeEndpointRow (tx: Tx, endpointId: string): Promise<void> {
  await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId))
}

export async function rotateDeliverySecret (
  db: Queryable, shopId: string
): Promise<{ endpoint: DeliveryEndpointRow, secret: string } | undefined> {
  const secret = generateWebhookSecret()
  const [endpoint] = await db.update(webhookEndpoints).set(rotatedSecret(secret))
    .where(ofShop(shopId)).returning(columns)
  return endpoint && { endpoint, secret }
}

/**
 * A sample order of the shop's product for the test call: paid, `quantity`
 * items, the product's price (in rubles) times the quantity, no field values.
 * Nothing is stored. Undefined when the product is not the shop's.
 */
export async function sampleOrder (
  db: Queryable, shopId: string, productId: string, quantity: number
): Promise<Record<string, unknown> | undefined> {
  const [product] = await run<{ title: string, price: string, rate: string | null }>(db,
    `select p.title, p.price::text as price, r.rate::text as rate
    from products p left join currency_rates r on r.id = p.currency_rate_id
    where p.id = $1 and p.shop_id = $2`, [productId, shopId])
  if (!product) return undefined
  return {
    id: randomUUID(),
    status: 'paid',
    createdAt: new Date().toISOString(),
    productId,
    productTitle: product.title,
    quantity,
    amount: fromKopecks(toRubles(toKopecks(product.price) * BigInt(quantity), product.rate)),
    fieldValues: [],
    assigneeType: 'user',
    deliveredValue: null,
    deliveredValues: [],
    takenAt: null,
    deliveredAt: null
  }
}
