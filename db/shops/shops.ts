// Shops: the tenant every API key, product, order and rate belongs to.
import { eq } from 'drizzle-orm'
import type { Queryable } from '../core/client.js'
import { shops } from '../tables.js'

export interface Shop { id: string, name: string, createdAt: Date }

export async function createShop (db: Queryable, name: string): Promise<Shop> {
  const [shop] = await db.insert(shops).values({ name }).returning()
  return shop
}

export async function findShop (db: Queryable, id: string): Promise<Shop | undefined> {
  const [shop] = await db.select().from(shops).where(eq(shops.id, id))
  return shop
}
