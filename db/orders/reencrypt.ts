// Re-encryption of the delivered values at rest under the current values key
// (docs/security.md): orders' delivered values, the orders that events carry,
// and the database's idempotency records. Rows of an upgraded database that
// still hold values in clear are sealed; rows sealed under the previous key
// are sealed again under the current one. Each place goes by primary key in
// batches, each its own short transaction that locks its rows (SKIP LOCKED: a
// row a running request holds is left for the next run), so it can stop and
// resume at any point: what is done no longer matches.
import { openValues, sealValues, type StoredValues } from '../../domain/delivered-values.js'
import { openResponseBody, sealResponse, type StoredResponse } from '../../domain/sealed-responses.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Db } from '../core/client.js'
import { run } from '../core/sql.js'

export interface PlaceProgress { place: string, done: number, remaining: number }

interface Place<Row extends { id: string }> {
  /** What the progress calls it. */
  name: string
  /** Its primary key over alias `t`, cast to its type (the batches go in its order). */
  key: string
  /** SQL over the place's rows (alias `t`), $1 the current key id: the rows left to do. */
  pending: string
  /** The rows of a batch after id $2 (at most $3), locked, as `Row`. */
  select: string
  /** The batch written back: $1 the JSON list of `{id, …}` that `redo` made. */
  update: string
  /** The row as it is to be written, from the row as read. */
  redo: (row: Row, cipher: StockCipher) => Record<string, unknown>
}

const valuesLeft = (stored: string) =>
  `(${stored} <> '[]'::jsonb and (jsonb_typeof(${stored}) = 'array' or ${stored}->>'keyId' <> $1))`

const orderValues: Place<{ id: string, stored: StoredValues }> = {
  name: 'orders',
  key: 't.id',
  pending: `from orders t where ${valuesLeft('t.delivered_values')}`,
  select: 'select t.id, t.delivered_values as stored',
  update: `update orders o set delivered_values = x->'stored'
    from jsonb_array_elements($1::text::jsonb) x where o.id = (x->>'id')::uuid`,
  redo: (row, cipher) => ({ id: row.id, stored: sealValues(cipher, row.id, openValues(cipher, row.id, row.stored)) })
}

/** Events whose data carries an order with values: order.* kinds, whose `data.order` is the order's representation. */
const eventValues: Place<{ id: string, orderId: string, stored: StoredValues }> = {
  name: 'events',
  key: 't.id',
  pending: `from events t where t.type like 'order.%' and ${valuesLeft("(t.data->'order'->'deliveredValues')")}`,
  select: 'select t.id, t.data->\'order\'->>\'id\' as "orderId", t.data->\'order\'->\'deliveredValues\' as stored',
  // deliveredValue is null while sealed: revealOrder joins the values once opened.
  update: `update events e
    set data = jsonb_set(jsonb_set(e.data, '{order,deliveredValues}', x->'stored'),
      '{order,deliveredValue}', 'null'::jsonb)
    from jsonb_array_elements($1::text::jsonb) x where e.id = (x->>'id')::uuid`,
  redo: (row, cipher) => ({
    id: row.id, stored: sealValues(cipher, row.orderId, openValues(cipher, row.orderId, row.stored))
  })
}

const idempotentResponses: Place<{ id: string, response: StoredResponse }> = {
  name: 'idempotency records',
  key: 't.key',
  pending: "from idempotency_records t where t.response is not null and (t.response->>'keyId') is distinct from $1",
  select: 'select t.key as id, t.response',
  update: `update idempotency_records r set response = x->'response'
    from jsonb_array_elements($1::text::jsonb) x where r.key = x->>'id'`,
  redo: (row, cipher) => {
    const body = openResponseBody(cipher, row.id, row.response)
    const { keyId: _old, ...plain } = row.response
    return { id: row.id, response: sealResponse(cipher, row.id, { ...plain, body }) }
  }
}

async function countLeft (db: Db, pending: string, keyId: string): Promise<number> {
  const [row] = await run<{ n: number }>(db, `select count(*)::int as n ${pending}`, [keyId])
  return Number(row.n)
}

async function redoPlace<Row extends { id: string }> (
  db: Db, cipher: StockCipher, place: Place<Row>, batchSize: number, onProgress?: (progress: PlaceProgress) => void
): Promise<PlaceProgress> {
  // Counted before and after: on the way, what is left is what was counted less what was done.
  const progress = { place: place.name, done: 0, remaining: await countLeft(db, place.pending, cipher.keyId) }
  onProgress?.(progress)
  const type = place.key === 't.id' ? 'uuid' : 'text'
  let after: string | null = null
  while (progress.remaining > 0) {
    const rows = await db.transaction(async (tx) => {
      const batch = await run<Row>(tx, `${place.select} ${place.pending}
        and ($2::text is null or ${place.key} > $2::${type})
        order by ${place.key} limit $3 for update of t skip locked`, [cipher.keyId, after, batchSize])
      if (batch.length === 0) return batch
      await run(tx, place.update, [JSON.stringify(batch.map((row) => place.redo(row, cipher)))])
      return batch
    })
    if (rows.length === 0) break
    after = rows[rows.length - 1].id
    progress.done += rows.length
    progress.remaining = Math.max(0, progress.remaining - rows.length)
    onProgress?.({ ...progress })
  }
  progress.remaining = await countLeft(db, place.pending, cipher.keyId)
  return progress
}

/**
 * Seals every delivered value at rest under the current key: orders, events,
 * idempotency records, in that order. Returns each place's count done and
 * left (left: rows running requests held, or written meanwhile: run it again).
 */
export async function reencryptDeliveredValues (
  db: Db, cipher: StockCipher, options: { batchSize: number, onProgress?: (progress: PlaceProgress) => void }
): Promise<PlaceProgress[]> {
  const done: PlaceProgress[] = []
  done.push(await redoPlace(db, cipher, orderValues, options.batchSize, options.onProgress))
  done.push(await redoPlace(db, cipher, eventValues, options.batchSize, options.onProgress))
  done.push(await redoPlace(db, cipher, idempotentResponses, options.batchSize, options.onProgress))
  return done
}
