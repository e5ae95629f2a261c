// Placeholder until the products module lands.
import type { Db } from './client.js'

export async function createProduct (_db: Db, _shopId: string, _input: unknown): Promise<{ id: string }> {
  throw new Error('not implemented')
}
