// The order state machine as one table (docs/api-rules.md, orders): which action moves an
// order from which statuses to which, and what else happens with it. The data
// layer turns each row into one conditional UPDATE; handlers never re-decide it.

export const orderStatuses = ['paid', 'processing', 'awaiting_confirmation', 'completed', 'cancelled'] as const
export type OrderStatus = typeof orderStatuses[number]

export type OrderAction = 'take' | 'deliver' | 'cancel' | 'confirm'

export interface OrderTransition {
  from: readonly OrderStatus[]
  to: OrderStatus
  /** The timestamp column the transition sets. */
  stamps: 'takenAt' | 'deliveredAt' | 'cancelledAt' | 'completedAt'
  /** The money movement recorded with it, in the same transaction. */
  ledger: 'refund' | 'credit' | null
  /** Who the order is assigned to afterwards, when that changes. */
  assigneeType?: 'api'
}

export const orderTransitions: Readonly<Record<OrderAction, OrderTransition>> = {
  take: { from: ['paid'], to: 'processing', stamps: 'takenAt', ledger: null, assigneeType: 'api' },
  deliver: { from: ['processing'], to: 'awaiting_confirmation', stamps: 'deliveredAt', ledger: null },
  // The buyer gets the full amount back; the shop was never credited, so nothing to claw back.
  cancel: { from: ['paid', 'processing', 'awaiting_confirmation'], to: 'cancelled', stamps: 'cancelledAt', ledger: 'refund' },
  // The buyer confirmed receipt: only now is the shop credited.
  confirm: { from: ['awaiting_confirmation'], to: 'completed', stamps: 'completedAt', ledger: 'credit' }
}

/** What deliver attaches: `values` wins over `value`; nothing sent means nothing attached. */
export function deliveredValuesFrom (body: { value?: string, values?: string[] } | null | undefined): string[] {
  if (body?.values !== undefined) return body.values
  if (body?.value !== undefined) return [body.value]
  return []
}

/** The single-string view of the delivered values (null when none). */
export function joinDeliveredValues (values: readonly string[]): string | null {
  return values.length > 0 ? values.join('\n') : null
}
