// The rules of claims (docs/claims.md) as one table and a few pure functions:
// which action a claim's status allows, when an order can be claimed, the
// deadline, the reported positions, and the refusals as ApiErrors. The claims'
// service (services/claims/) applies them under the claim's and the order's row
// locks. Every enum of claims is a const array here, which the wire's schemas
// (schemas/claims.ts), the rows and the portal's words take as they are.
import { ApiError, ruleOf, validationError } from './errors.js'
import type { SystemMessage } from './system-messages.js'

export const claimStatuses = ['open', 'replaced', 'refunded', 'rejected', 'escalated'] as const
export type ClaimStatus = typeof claimStatuses[number]

export const claimReasons = ['not_working', 'already_used', 'wrong_item', 'other'] as const
export type ClaimReason = typeof claimReasons[number]

export type ClaimAction = 'replace' | 'refund' | 'reject' | 'escalate' | 'resolve'

/** How a claim was settled (its `resolution.kind`). */
export const resolutionKinds = ['replaced', 'refunded', 'rejected'] as const
export type ResolutionKind = typeof resolutionKinds[number]

/** Who settled it: the shop, the service by itself (autoReplace, the deadline), or the marketplace. */
export const resolvers = ['seller', 'auto', 'operator'] as const
export type ResolvedBy = typeof resolvers[number]

/** What the operator may do with an escalated claim. */
export const operatorOutcomes = ['refund', 'reject'] as const
export type OperatorOutcome = typeof operatorOutcomes[number]

/** The statuses each action starts from; anything else is 409 CLAIM_INVALID_STATUS. */
export const claimActions: Readonly<Record<ClaimAction, readonly ClaimStatus[]>> = {
  replace: ['open', 'escalated'],
  refund: ['open', 'escalated'],
  reject: ['open'],
  // The buyer disputes a rejection (within the window after it, and not the operator's: that one is final).
  escalate: ['rejected'],
  resolve: ['escalated']
}

/** The claim's status after a resolution of `kind`. */
export const statusAfter: Readonly<Record<ResolutionKind, ClaimStatus>> = {
  replaced: 'replaced',
  refunded: 'refunded',
  rejected: 'rejected'
}

/** At most this many claims of one order, in all. */
export const MAX_CLAIMS_PER_ORDER = 3
export const MAX_CLAIM_TEXT = 2000
export const MAX_CLAIM_NOTE = 1000
export const DAY_MS = 86_400_000

export const claimNotFound = () => new ApiError('NOT_FOUND', 'Claim not found.')

export const claimAlreadyOpen = () =>
  new ApiError('CLAIM_ALREADY_OPEN', 'The order already has an open or escalated claim.')

export const claimInvalidStatus = (action: ClaimAction, status: ClaimStatus) =>
  new ApiError('CLAIM_INVALID_STATUS', `Cannot ${action} a claim that is ${status}.`)

/** Throws 409 CLAIM_INVALID_STATUS unless `status` allows `action`. */
export function checkClaimAction (action: ClaimAction, status: ClaimStatus): void {
  if (!claimActions[action].includes(status)) throw claimInvalidStatus(action, status)
}

/**
 * Whether a rejected claim may still be escalated at `now`: a seller's
 * rejection, within `windowDays` after it. The operator's rejection is final.
 */
export function canEscalate (
  claim: { status: ClaimStatus, resolvedBy: ResolvedBy | null, resolvedAt: Date | null }, now: Date, windowDays: number
): boolean {
  if (claim.status !== 'rejected' || claim.resolvedBy !== 'seller' || claim.resolvedAt === null) return false
  return now.getTime() <= claim.resolvedAt.getTime() + windowDays * DAY_MS
}

/** The order as the opening of a claim sees it. */
export interface ClaimableOrder { status: string, deliveredAt: Date | null, deliveredCount: number }

/**
 * Refuses an opening the order's status or age forbids (409
 * ORDER_INVALID_STATUS): it must await confirmation, or be completed at most
 * `windowDays` after its delivery.
 */
export function checkClaimable (order: ClaimableOrder, now: Date, windowDays: number): void {
  if (order.status === 'awaiting_confirmation') return
  const withinWindow = order.deliveredAt !== null && now.getTime() <= order.deliveredAt.getTime() + windowDays * DAY_MS
  if (order.status === 'completed' && withinWindow) return
  const why = order.status === 'completed' ? `completed more than ${windowDays} days after its delivery` : order.status
  throw new ApiError('ORDER_INVALID_STATUS', `Cannot open a claim on an order that is ${why}.`)
}

/**
 * Refuses a further claim of an order: another one still open or escalated
 * (409 CLAIM_ALREADY_OPEN, which wins), or the order had its 3 (409 CLAIM_LIMIT).
 */
export function checkClaimCount (claims: ReadonlyArray<{ status: ClaimStatus }>): void {
  if (claims.some((c) => c.status === 'open' || c.status === 'escalated')) throw claimAlreadyOpen()
  if (claims.length >= MAX_CLAIMS_PER_ORDER) {
    throw new ApiError('CLAIM_LIMIT', `The order already had ${MAX_CLAIMS_PER_ORDER} claims.`)
  }
}

/**
 * The reported positions, ascending: each in range of the order's
 * `deliveredCount` values and none twice (else 400); absent means all of them.
 */
export function reportedIndexes (given: readonly number[] | undefined, deliveredCount: number): number[] {
  if (given === undefined) return Array.from({ length: deliveredCount }, (_, i) => i)
  const problems = given.flatMap((index, i) => {
    if (!Number.isInteger(index) || index < 0 || index >= deliveredCount) {
      return [{
        path: `body.valueIndexes.${i}`,
        message: 'must be a position in the order\'s deliveredValues ' +
        `(0–${deliveredCount - 1})`
      }]
    }
    return given.indexOf(index) !== i ? [{ path: `body.valueIndexes.${i}`, message: 'must not repeat a position' }] : []
  })
  if (deliveredCount === 0 && given.length > 0 && problems.length === 0) {
    problems.push({
      path: 'body.valueIndexes',
      message: 'the order was delivered with no values'
    })
  }
  if (problems.length > 0) {
    throw validationError('Invalid request: ' +
    `${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, problems)
  }
  return [...given].sort((a, b) => a - b)
}

/** When the shop must have answered a claim opened at `createdAt`. */
export const respondByOf = (createdAt: Date,
  responseSeconds: number) => new Date(createdAt.getTime() + responseSeconds * 1000)

/** Trims a claim's `text` or a `note`; 400 when empty after trimming, too long, or holding NUL. */
export function claimText (raw: string, path: string, max: number): string {
  const text = raw.trim()
  const length = [...text].length
  let problem: string | undefined
  let rule = ruleOf('x-trimmed-length', { min: 1, max })
  if (length === 0) problem = 'must not be empty after trimming'
  else if (length > max) problem = `must be at most ${max} characters after trimming`
  else if (text.includes('\0')) [problem, rule] = ['must not contain a NUL character', ruleOf('x-no-nul', {})]
  if (problem !== undefined) {
    throw validationError(`Invalid request: ${path} ${problem}.`, [{ path, message: problem, rule }])
  }
  return text
}

/** The seller's values for a replacement: as many as the reported positions (else 400). */
export function checkReplacementValues (values: readonly string[], reportedCount: number): void {
  if (reportedCount === 0) {
    throw validationError('A claim that reports no value cannot be replaced: refund or reject ' +
      'it.', [{ path: 'body', message: 'the claim reports no value' }])
  }
  if (values.length !== reportedCount) {
    throw validationError(`Invalid request: body.values must hold ${reportedCount} value(s), one per reported ` +
      'position.',
    [{
      path: 'body.values',
      message: `must hold exactly ${reportedCount} value(s)`,
      rule: ruleOf('x-values-count', { count: reportedCount })
    }])
  }
  const withNul = values.findIndex((v) => v.includes('\0'))
  if (withNul !== -1) {
    throw validationError(`Invalid request: body.values.${withNul} must not contain a NUL ` +
    'character.', [
      { path: `body.values.${withNul}`, message: 'must not contain a NUL character', rule: ruleOf('x-no-nul', {}) }
    ])
  }
}

/** The order's values after a replacement: `replacements` take the reported positions, in order. */
export function replacedValues (
  delivered: readonly string[], indexes: readonly number[], replacements: readonly string[]
): string[] {
  const next = [...delivered]
  indexes.forEach((index, i) => { next[index] = replacements[i] })
  return next
}

/** The chat's system message for each step (domain/system-messages.ts): what happened, never a value. */
export const claimMessages = {
  opened: (count: number): SystemMessage => ({ kind: 'claimOpened', count }),
  replaced: (by: ResolvedBy, count: number): SystemMessage => ({ kind: 'claimReplaced', by, count }),
  refunded: (by: ResolvedBy): SystemMessage => ({ kind: 'claimRefunded', by }),
  rejected: (by: ResolvedBy): SystemMessage => ({ kind: 'claimRejected', by }),
  escalated: (): SystemMessage => ({ kind: 'claimEscalated' })
} as const
