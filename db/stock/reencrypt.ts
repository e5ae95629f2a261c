// Re-encryption of stock items under the current VALUES_ENCRYPTION_KEY (docs/stock.md):
// in batches, each its own short transaction, so it can stop and resume at any
// point (only items under another key are left to do). Items a purchase holds
// are skipped and picked up by the next batch; purchases skip the batch's.
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Db } from '../core/client.js'
import { run } from '../core/sql.js'

export interface ReencryptProgress { done: number, remaining: number }

interface OldItem {
  id: string, productId: string, ciphertext: Buffer | Uint8Array, nonce: Buffer | Uint8Array, keyId: string
}

/** How many items are not under the current key. */
export async function itemsUnderOtherKeys (db: Db, cipher: StockCipher): Promise<number> {
  const [row] = await run<{ n: number }>(db, 'select count(*)::int as n from stock_items where key_id <> $1',
    [cipher.keyId])
  return Number(row.n)
}

export async function reencryptStock (
  db: Db, cipher: StockCipher, options: { batchSize: number, onProgress?: (progress: ReencryptProgress) => void }
): Promise<ReencryptProgress> {
  let done = 0
  let remaining = await itemsUnderOtherKeys(db, cipher)
  options.onProgress?.({ done, remaining })
  while (remaining > 0) {
    const count = await db.transaction(async (tx) => {
      const items = await run<OldItem>(tx, `select id, product_id as "productId", ciphertext, nonce, key_id as "keyId"
        from stock_items
        where key_id <> $1 order by id limit $2 for update skip locked`, [cipher.keyId, options.batchSize])
      const rows = items.map((item) => {
        const value = cipher.decrypt({
          ciphertext: Buffer.from(item.ciphertext), nonce: Buffer.from(item.nonce), keyId: item.keyId
        }, item.productId)
        const encrypted = cipher.encrypt(value, item.productId)
        return {
          id: item.id,
          c: encrypted.ciphertext.toString('base64'),
          n: encrypted.nonce.toString('base64'),
          h: cipher.hash(value).toString('base64')
        }
      })
      if (rows.length === 0) return 0
      await run(tx, `update stock_items s set ciphertext = decode(x->>'c', 'base64'), nonce = decode(x->>'n', 'base64'),
          value_hash = decode(x->>'h', 'base64'), key_id = $2
        from jsonb_array_elements($1::text::jsonb) x where s.id = (x->>'id')::uuid`,
      [JSON.stringify(rows), cipher.keyId])
      return rows.length
    })
    // Everything left is held by running purchases: the next run finishes it.
    if (count === 0) break
    done += count
    remaining = await itemsUnderOtherKeys(db, cipher)
    options.onProgress?.({ done, remaining })
  }
  return { done, remaining }
}
