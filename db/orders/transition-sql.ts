// The state machine's table (domain/order-transitions.ts) as SQL: every write
// that changes an order's status, in db/orders/, takes the columns it sets and
// the statuses it starts from here, so a row of the table and the statements
// that apply it change together.
import { orderTransitions, type OrderAction, type OrderStamp } from '../../domain/order-transitions.js'
import { NOW_MS } from '../core/time.js'

const stampColumns: Record<OrderStamp, string> = {
  takenAt: 'taken_at',
  deliveredAt: 'delivered_at',
  cancelledAt: 'cancelled_at',
  completedAt: 'completed_at'
}

/**
 * The columns `action` sets and their SQL: the status, its timestamps and
 * updated_at (the statement's time), the assignee when it changes, and the
 * delivered values (`deliveredValues`, SQL of the jsonb that deliveredValuesParam
 * of db/orders/row.ts binds: sealed) when it delivers.
 */
export function transitionColumns (
  action: OrderAction, deliveredValues?: string
): Array<[column: string, sql: string]> {
  const transition = orderTransitions[action]
  const columns: Array<[string, string]> = [['status', `'${transition.to}'`]]
  for (const stamp of transition.stamps) columns.push([stampColumns[stamp], NOW_MS])
  columns.push(['updated_at', NOW_MS])
  if (transition.assigneeType) columns.push(['assignee_type', `'${transition.assigneeType}'`])
  if (transition.delivers) {
    if (deliveredValues === undefined) throw new Error(`${action} needs the delivered values`)
    columns.push(['delivered_values', deliveredValues])
  }
  return columns
}

/** The SET list of an UPDATE applying `action`. */
export const transitionSet = (action: OrderAction, deliveredValues?: string) =>
  transitionColumns(action, deliveredValues).map(([column, value]) => `${column} = ${value}`).join(', ')

/** The condition that the order (alias `o`, or none) is in a status `action` starts from. */
export function transitionFrom (action: OrderAction, o?: string): string {
  const statuses = orderTransitions[action].from.map((status) => `'${status}'`).join(', ')
  return `${o === undefined ? '' : `${o}.`}status in (${statuses})`
}
