import t from 'tap'
import { deliveredValuesFrom, joinDeliveredValues, orderStatuses, orderTransitions, type OrderAction } from '../../domain/order-transitions.js'

t.test('the table is the one of docs/api-rules.md, orders', async (t) => {
  t.same(orderStatuses, ['paid', 'processing', 'awaiting_confirmation', 'completed', 'cancelled'])
  t.same(orderTransitions.take, { from: ['paid'], to: 'processing', stamps: ['takenAt'], ledger: null, assigneeType: 'api' })
  t.same(orderTransitions.deliver, {
    from: ['processing'], to: 'awaiting_confirmation', stamps: ['deliveredAt'], ledger: null, delivers: true
  })
  t.same(orderTransitions.cancel, {
    from: ['paid', 'processing', 'awaiting_confirmation'], to: 'cancelled', stamps: ['cancelledAt'], ledger: 'refund'
  })
  t.same(orderTransitions.confirm, {
    from: ['awaiting_confirmation'], to: 'completed', stamps: ['completedAt'], ledger: 'credit'
  })
  // The service's own delivery (stock, delivery endpoint): taken and delivered at once, by `auto`.
  t.same(orderTransitions.autoDeliver, {
    from: ['paid'], to: 'awaiting_confirmation', stamps: ['takenAt', 'deliveredAt'], ledger: null, assigneeType: 'auto', delivers: true
  })
  t.same(orderTransitions.refund, {
    from: ['awaiting_confirmation', 'completed'], to: 'cancelled', stamps: ['cancelledAt'], ledger: 'refund', debitFrom: ['completed']
  }, 'a claim\'s refund (docs/claims.md)')
})

t.test('final statuses allow nothing but a claim\'s refund of a completed order; no action leads back', async (t) => {
  for (const status of ['completed', 'cancelled'] as const) {
    for (const action of Object.keys(orderTransitions) as OrderAction[]) {
      if (action === 'refund' && status === 'completed') continue
      t.notOk(orderTransitions[action].from.includes(status), `${action} from ${status}`)
    }
  }
  for (const [action, transition] of Object.entries(orderTransitions)) {
    t.notOk(transition.from.includes(transition.to), `${action} cannot apply to its own result`)
  }
  // Money moves only on the transitions into a final status; a debit only where a credit was made.
  const moving = Object.entries(orderTransitions).filter(([, tr]) => tr.ledger !== null).map(([a]) => a)
  t.same(moving.sort(), ['cancel', 'confirm', 'refund'])
  for (const transition of Object.values(orderTransitions)) {
    for (const status of transition.debitFrom ?? []) t.equal(orderTransitions.confirm.to, status, 'debited only after the credit')
  }
})

t.test('delivered values', async (t) => {
  t.same(deliveredValuesFrom(undefined), [])
  t.same(deliveredValuesFrom(null), [])
  t.same(deliveredValuesFrom({}), [])
  t.same(deliveredValuesFrom({ value: 'A' }), ['A'])
  t.same(deliveredValuesFrom({ value: '' }), [''], 'an empty string is still a value')
  t.same(deliveredValuesFrom({ values: ['A', 'B'] }), ['A', 'B'])
  t.same(deliveredValuesFrom({ value: 'X', values: ['Y'] }), ['Y'], 'values wins')
  t.same(deliveredValuesFrom({ value: 'X', values: [] }), [], 'even when empty')
  t.equal(joinDeliveredValues([]), null)
  t.equal(joinDeliveredValues(['A']), 'A')
  t.equal(joinDeliveredValues(['A', 'B', 'C']), 'A\nB\nC')
})
