// The order's shape in the data layer, defined once (docs/api-rules.md,
// "Orders"): the columns of `orders` its representation (OrderSchema of
// schemas/orders.ts) is made of, the row they read as, and the representation
// made from them, in Node (orderView) or in SQL (orderResponseColumns,
// orderJson: the hot writes answer and build their events in the statement,
// db/events/statements.ts). The mapping lives here, beside the columns it maps,
// so a column and its place in the representation change together.
//
// The delivered values are the one column written sealed (docs/security.md):
// every writer binds them through deliveredValuesParam, and every reader opens
// them with revealOrder (domain/delivered-values.ts) when it builds a response,
// a feed page or a webhook body. Until then an order is a StoredOrder: its
// `deliveredValues` may be the sealed box, which the SQL representation (and so
// every event that carries the order) copies as it is.
import { joinDeliveredValues } from '../../domain/order-transitions.js'
import { isSealed, sealValues, type StoredValues } from '../../domain/delivered-values.js'
import type { StockCipher } from '../../domain/stock-cipher.js'
import { moneyToNumber } from '../../domain/money.js'
import type { Order } from '../../schemas/orders.js'
import { orders } from '../tables.js'
import { isoTime } from '../core/time.js'

/** The columns of `orders` an order's representation is made of, by its field names, in its order. */
export const orderRowColumns = {
  id: orders.id,
  status: orders.status,
  createdAt: orders.createdAt,
  productId: orders.productId,
  productTitle: orders.productTitle,
  quantity: orders.quantity,
  amount: orders.amount,
  fieldValues: orders.fieldValues,
  assigneeType: orders.assigneeType,
  deliveredValues: orders.deliveredValues,
  takenAt: orders.takenAt,
  deliveredAt: orders.deliveredAt
}

/** An order as read through orderRowColumns (times as Date, the amount as its exact decimal string). */
export type OrderRow = Pick<typeof orders.$inferSelect, keyof typeof orderRowColumns>

type RowColumn = typeof orderRowColumns[keyof typeof orderRowColumns]

/** The column of alias `o` as the representation writes it: a time as the API does, money as a number. */
function responseSql (o: string, column: RowColumn): string {
  const ref = `${o}.${column.name}`
  if (column.dataType === 'date') return isoTime(ref)
  if (column.columnType === 'PgNumeric') return `${ref}::float8`
  return ref
}

/** OrderSchema's fields as SQL over alias `o` (an orders row), in its order. */
function responseFields (o: string): Array<[field: string, sql: string]> {
  const fields = Object.entries(orderRowColumns)
    .map(([field, column]): [string, string] => [field, responseSql(o, column)])
  // deliveredValue: deliveredValues joined by a line feed, null when empty (joinDeliveredValues)
  // or sealed (revealOrder joins them once opened).
  const joined =
    `case when jsonb_typeof(${o}.delivered_values) <> 'array' or ${o}.delivered_values = '[]'::jsonb then null
       else array_to_string(array(select jsonb_array_elements_text(${o}.delivered_values)), E'\\n') end`
  fields.splice(fields.findIndex(([field]) => field === 'deliveredValues'), 0, ['deliveredValue', joined])
  return fields
}

/** The columns of alias `o` (an orders row) named and formatted as OrderSchema, so rows need no mapping. */
export const orderResponseColumns = (o: string) =>
  responseFields(o).map(([field, sql]) => `${sql} as "${field}"`).join(', ')

/** The order of alias `o` as OrderSchema, as one jsonb value. */
export const orderJson = (o: string) =>
  `jsonb_build_object(${responseFields(o).map(([field, sql]) => `'${field}', ${sql}`).join(', ')})`

/** The columns of alias `o` named as OrderRow, for SQL written by hand (reads as orderRowColumns does). */
export const orderRowSql = (o: string) =>
  Object.entries(orderRowColumns).map(([field, column]) => `${o}.${column.name} as "${field}"`).join(', ')

/** An order as stored: its representation, with the delivered values perhaps still sealed. */
export type StoredOrder = Omit<Order, 'deliveredValues'> & { deliveredValues: StoredValues }

/**
 * The parameter (jsonb text) that writes `values`, delivered to order `orderId`,
 * into `orders.delivered_values`: sealed under the values key (a plain list
 * without one, or when empty). The one way delivered values are written.
 */
export function deliveredValuesParam (cipher: StockCipher | null, orderId: string, values: readonly string[]): string {
  return JSON.stringify(sealValues(cipher, orderId, values))
}

export function orderView (row: OrderRow): StoredOrder {
  return {
    id: row.id,
    status: row.status as Order['status'],
    createdAt: row.createdAt.toISOString(),
    productId: row.productId,
    productTitle: row.productTitle,
    quantity: row.quantity,
    amount: moneyToNumber(row.amount),
    fieldValues: row.fieldValues,
    assigneeType: row.assigneeType as Order['assigneeType'],
    deliveredValue: isSealed(row.deliveredValues) ? null : joinDeliveredValues(row.deliveredValues),
    deliveredValues: row.deliveredValues,
    takenAt: row.takenAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null
  }
}
