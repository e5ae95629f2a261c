// The stock side of claims (docs/claims.md): which stock item carries each
// position of an order's delivered values, the reported items made
// `defective`, and replacements taken from stock with the stock's own take
// (db/stock/take.ts: oldest first, counts exact, signals). Everything here
// runs under the product's lock (lockStockProduct), as every stock write does.
// The writes are one statement each, sent at once when called, so that a claim
// can send them together (db/core/pipelined-transaction.ts).
import { ApiError } from '../../domain/errors.js'
import { NO_OPTION, type StockSignal } from '../../domain/stock-rules.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import type { Tx } from '../core/client.js'
import { run, runPrepared } from '../core/sql.js'
import { NOW_MS } from '../core/time.js'
import { takeStock, type StockProduct } from '../stock/take.js'

export interface ReportedItem { id: string, optionKey: string, deliveredIndex: number }

/**
 * The stock items that carry the order's positions $2 (those not from stock
 * have none), in one statement that first numbers the order's delivered items
 * when none is numbered yet: a delivery from stock gives the values in the
 * order of the items' positions, so the n-th of them carries
 * deliveredValues[n]. Replacements are numbered when taken; items numbered
 * once keep their number. The statement's own snapshot does not see its
 * update, hence the numbered rows read from both.
 */
const reportedItemsSql = `with n as (
    update stock_items s set delivered_index = r.i from (
      select id, (row_number() over (order by position) - 1)::int as i from stock_items
      where order_id = $1 and status = 'delivered' and delivered_index is null
    ) r
    where s.id = r.id and not exists (select 1 from stock_items where order_id = $1 and delivered_index is not null)
    returning s.id, s.option_key, s.delivered_index
  ), numbered as (
    select id, option_key, delivered_index from stock_items
    where order_id = $1 and status = 'delivered' and delivered_index is not null
    union all select id, option_key, delivered_index from n
  )
  select id, option_key as "optionKey", delivered_index as "deliveredIndex" from numbered
  where delivered_index = any($2::int[]) order by delivered_index`

/** The stock items that carry the order's positions `indexes`: one statement, sent at once. */
export async function reportedItems (tx: Tx, orderId: string, indexes: readonly number[]): Promise<ReportedItem[]> {
  if (indexes.length === 0) return []
  return runPrepared<ReportedItem>(tx, reportedItemsSql, [orderId, `{${indexes.join(',')}}`])
}

/** The items become `defective` (never available again) and the counts follow. */
export async function markDefective (tx: Tx, productId: string, items: readonly ReportedItem[]): Promise<void> {
  if (items.length === 0) return
  await runPrepared(tx, `with d as (
      update stock_items set status = 'defective' where id = any($2::uuid[]) and status = 'delivered' returning
        option_key
    ), g as (select option_key, count(*)::int as n from d group by option_key)
    update stock_counts c set delivered = c.delivered - g.n, defective = c.defective + g.n, updated_at = ${NOW_MS}
    from g where c.product_id = $1 and c.option_key =
      g.option_key`, [productId, `{${items.map((i) => i.id).join(',')}}`])
}

/** The variant an order bought: its reported items' own, else the option of the stock field it chose by label. */
export async function orderOptionKey (
  tx: Tx, product: StockProduct, fieldValues: ReadonlyArray<{
    fieldId: string,
    value: string
  }>, reported: readonly ReportedItem[]
): Promise<string> {
  if (product.optionFieldId === null) return NO_OPTION
  if (reported.length > 0) return reported[0].optionKey
  const chosen = fieldValues.find((f) => f.fieldId === product.optionFieldId)
  const [option] = chosen
    ? await run<{ id: string }>(tx, 'select id from product_field_options where field_id = $1 and label = $2 ' +
      'order by position limit 1', [product.optionFieldId, chosen.value])
    : []
  return option?.id ?? NO_OPTION
}

export interface Replacement { values: string[], signals: StockSignal[] }

/**
 * Takes one item per reported position from the product's stock (of
 * `optionKey`), oldest first, delivered to the order and numbered with those
 * positions in the order of the items' positions. Too few available: 409 STOCK_INSUFFICIENT with nothing taken.
 */
export async function takeReplacements (
  tx: Tx, cipher: StockCipher, product: StockProduct, orderId: string, optionKey: string, indexes: readonly number[]
): Promise<Replacement> {
  const demand = { orderId, optionKey, quantity: indexes.length, positions: indexes }
  const [assignment] = await takeStock(tx, cipher, product, [demand])
  if (!assignment) {
    const [count] = await run<{ available: number }>(tx, 'select available from stock_counts where product_id ' +
      '= $1 and option_key = $2', [product.id, optionKey])
    throw new ApiError('STOCK_INSUFFICIENT',
      `The stock holds ${Number(count?.available ?? 0)} available item(s) of the order's option; the ` +
        `replacement needs ${indexes.length}.`)
  }
  return { values: assignment.values, signals: assignment.signals }
}
