// The order state machine as one table (docs/api-rules.md, orders): which action moves an
// order from which statuses to which, and what else happens with it. The data
// layer turns each row into one conditional UPDATE; handlers never re-decide it.

/** Who works an order: a person in the marketplace, the seller's API, or the service by itself. */
export const assigneeTypes = ['user', 'api', 'auto'] as const
export type AssigneeType = typeof assigneeTypes[number]

/** A ledger row's kind: the buyer's refund, the shop's credit, a credit taken back. */
export const ledgerKinds = ['refund', 'credit', 'debit'] as const
export type LedgerKind = typeof ledgerKinds[number]

export const orderStatuses = ['paid', 'processing', 'awaiting_confirmation', 'completed', 'cancelled'] as const
export type OrderStatus = typeof orderStatuses[number]

export type OrderAction = 'take' | 'deliver' | 'cancel' | 'confirm' | 'autoDeliver' | 'refund'

/** The timestamp columns a transition may set. */
export type OrderStamp = 'takenAt' | 'deliveredAt' | 'cancelledAt' | 'completedAt'

export interface OrderTransition {
  from: readonly OrderStatus[]
  to: OrderStatus
  /** The timestamp columns the transition sets (to the statement's time). */
  stamps: readonly OrderStamp[]
  /** The money movement recorded with it, in the same transaction. */
  ledger: Exclude<LedgerKind, 'debit'> | null
  /** Who the order is assigned to afterwards, when that changes. */
  assigneeType?: Exclude<AssigneeType, 'user'>
  /** Whether it attaches delivered values. */
  delivers?: true
  /** From these statuses the shop's credit is taken back too, with a `debit` row. */
  debitFrom?: readonly OrderStatus[]
}

export const orderTransitions: Readonly<Record<OrderAction, OrderTransition>> = {
  take: { from: ['paid'], to: 'processing', stamps: ['takenAt'], ledger: null, assigneeType: 'api' },
  deliver: { from: ['processing'], to: 'awaiting_confirmation', stamps: ['deliveredAt'], ledger: null, delivers: true },
  // The buyer gets the full amount back; the shop was never credited, so nothing to claw back.
  cancel: {
    from: ['paid', 'processing', 'awaiting_confirmation'], to: 'cancelled', stamps: ['cancelledAt'], ledger: 'refund'
  },
  // The buyer confirmed receipt: only now is the shop credited.
  confirm: { from: ['awaiting_confirmation'], to: 'completed', stamps: ['completedAt'], ledger: 'credit' },
  // The service delivers a paid order itself (docs/stock.md, docs/delivery-endpoint.md): from stock at
  // the purchase or when stock arrives for a waiting order, or with the delivery endpoint's answer.
  // Taken and delivered at once; a purchase delivered from stock is created in this transition's result.
  autoDeliver: {
    from: ['paid'],
    to: 'awaiting_confirmation',
    stamps: ['takenAt', 'deliveredAt'],
    ledger: null,
    assigneeType: 'auto',
    delivers: true
  },
  // A claim's refund (docs/claims.md): also of a completed order, whose credit is then debited.
  refund: {
    from: ['awaiting_confirmation', 'completed'],
    to: 'cancelled',
    stamps: ['cancelledAt'],
    ledger: 'refund',
    debitFrom: ['completed']
  }
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
