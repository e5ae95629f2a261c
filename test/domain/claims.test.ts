import t from 'tap'
import {
  canEscalate, checkClaimable, checkClaimAction, checkClaimCount, checkReplacementValues, claimActions, claimMessages, claimText,
  DAY_MS, replacedValues, reportedIndexes, respondByOf, type ClaimStatus
} from '../../domain/claims.js'
import { systemMessageText } from '../../domain/system-messages.js'
import { ApiError } from '../../domain/errors.js'

const codeOf = (fn: () => unknown) => {
  try { fn() } catch (err) { return err instanceof ApiError ? `${err.statusCode} ${err.code}` : String(err) }
  return 'ok'
}

t.test('the actions each status allows (docs/claims.md)', async (t) => {
  t.same(claimActions, {
    replace: ['open', 'escalated'],
    refund: ['open', 'escalated'],
    reject: ['open'],
    escalate: ['rejected'],
    resolve: ['escalated']
  })
  const statuses: ClaimStatus[] = ['open', 'replaced', 'refunded', 'rejected', 'escalated']
  for (const status of ['replaced', 'refunded'] as const) {
    for (const action of Object.keys(claimActions) as Array<keyof typeof claimActions>) {
      t.equal(codeOf(() => checkClaimAction(action, status)), '409 CLAIM_INVALID_STATUS', `${action} from ${status}`)
    }
  }
  t.equal(codeOf(() => checkClaimAction('reject', 'escalated')), '409 CLAIM_INVALID_STATUS', 'an escalated claim waits for replace, refund or resolve')
  t.equal(codeOf(() => checkClaimAction('resolve', 'open')), '409 CLAIM_INVALID_STATUS', 'resolve only on escalated claims')
  for (const status of statuses) t.equal(codeOf(() => checkClaimAction('replace', status)), ['open', 'escalated'].includes(status) ? 'ok' : '409 CLAIM_INVALID_STATUS')
})

t.test('an order can be claimed while awaiting confirmation, or completed within the window after delivery', async (t) => {
  const now = new Date('2026-11-20T12:00:00.000Z')
  const deliveredAt = new Date(now.getTime() - 7 * DAY_MS)
  t.equal(codeOf(() => checkClaimable({ status: 'awaiting_confirmation', deliveredAt, deliveredCount: 1 }, now, 7)), 'ok')
  t.equal(codeOf(() => checkClaimable({ status: 'completed', deliveredAt, deliveredCount: 1 }, now, 7)), 'ok', 'exactly 7 days')
  t.equal(codeOf(() => checkClaimable({ status: 'completed', deliveredAt: new Date(deliveredAt.getTime() - 1), deliveredCount: 1 }, now, 7)), '409 ORDER_INVALID_STATUS')
  for (const status of ['paid', 'processing', 'cancelled']) {
    t.equal(codeOf(() => checkClaimable({ status, deliveredAt: null, deliveredCount: 0 }, now, 7)), '409 ORDER_INVALID_STATUS', status)
  }
})

t.test('one open claim at a time wins over the limit of 3', async (t) => {
  t.equal(codeOf(() => checkClaimCount([])), 'ok')
  t.equal(codeOf(() => checkClaimCount([{ status: 'rejected' }, { status: 'replaced' }])), 'ok')
  t.equal(codeOf(() => checkClaimCount([{ status: 'rejected' }, { status: 'replaced' }, { status: 'refunded' }])), '409 CLAIM_LIMIT')
  t.equal(codeOf(() => checkClaimCount([{ status: 'rejected' }, { status: 'replaced' }, { status: 'escalated' }])), '409 CLAIM_ALREADY_OPEN')
  t.equal(codeOf(() => checkClaimCount([{ status: 'open' }])), '409 CLAIM_ALREADY_OPEN')
})

t.test('reported positions', async (t) => {
  t.same(reportedIndexes(undefined, 3), [0, 1, 2], 'absent: all of them')
  t.same(reportedIndexes(undefined, 0), [], 'an order without values: none')
  t.same(reportedIndexes([2, 0], 3), [0, 2], 'sorted ascending')
  t.equal(codeOf(() => reportedIndexes([3], 3)), '400 VALIDATION_ERROR', 'out of range')
  t.equal(codeOf(() => reportedIndexes([-1], 3)), '400 VALIDATION_ERROR', 'negative')
  t.equal(codeOf(() => reportedIndexes([1, 1], 3)), '400 VALIDATION_ERROR', 'twice')
  t.equal(codeOf(() => reportedIndexes([0], 0)), '400 VALIDATION_ERROR', 'no values to point at')
  t.same(reportedIndexes([], 2), [], 'an empty list reports none')
})

t.test('deadline and escalation window', async (t) => {
  const created = new Date('2026-11-20T12:00:00.000Z')
  t.equal(respondByOf(created, 172_800).toISOString(), '2026-11-22T12:00:00.000Z')
  const resolvedAt = new Date('2026-11-21T00:00:00.000Z')
  const rejected = { status: 'rejected' as const, resolvedBy: 'seller' as const, resolvedAt }
  t.ok(canEscalate(rejected, new Date(resolvedAt.getTime() + 7 * DAY_MS), 7))
  t.notOk(canEscalate(rejected, new Date(resolvedAt.getTime() + 7 * DAY_MS + 1), 7), 'past the window')
  t.notOk(canEscalate({ ...rejected, resolvedBy: 'operator' }, resolvedAt, 7), 'the operator\'s rejection is final')
  t.notOk(canEscalate({ ...rejected, status: 'replaced' }, resolvedAt, 7))
})

t.test('texts, notes and replacement values', async (t) => {
  t.equal(claimText('  broken key \n', 'body.text', 2000), 'broken key')
  t.equal(codeOf(() => claimText('   ', 'body.text', 2000)), '400 VALIDATION_ERROR')
  t.equal(codeOf(() => claimText('x'.repeat(2001), 'body.text', 2000)), '400 VALIDATION_ERROR')
  t.equal(claimText('😀'.repeat(2000), 'body.text', 2000).length, 4000, 'characters are code points')
  t.equal(codeOf(() => claimText('a\0b', 'body.note', 1000)), '400 VALIDATION_ERROR')
  t.equal(codeOf(() => checkReplacementValues(['A'], 0)), '400 VALIDATION_ERROR', 'nothing reported: cannot replace')
  t.equal(codeOf(() => checkReplacementValues(['A'], 2)), '400 VALIDATION_ERROR', 'one value per reported position')
  t.equal(codeOf(() => checkReplacementValues(['A', 'B'], 2)), 'ok')
  t.same(replacedValues(['a', 'b', 'c'], [0, 2], ['X', 'Z']), ['X', 'b', 'Z'])
})

t.test('chat messages name what happened, never a value', async (t) => {
  const texts = [claimMessages.opened(2), claimMessages.opened(0), claimMessages.replaced('auto', 1), claimMessages.refunded('auto'),
    claimMessages.rejected('seller'), claimMessages.escalated()]
  for (const text of texts.map(systemMessageText)) t.ok(text.length > 10 && !text.includes('undefined'), text)
  t.equal(systemMessageText(claimMessages.opened(1)),
    'The buyer opened a claim: 1 delivered value reported as not working as described.')
  t.equal(systemMessageText(claimMessages.replaced('seller', 2)), 'Claim resolved: 2 values replaced by the shop.')
})
