// The words for texts the service stores in English (docs/portal/building.md "Stored texts"):
// why an attempt failed (domain/attempt-failures.ts) and the chat's system messages
// (domain/system-messages.ts), said from their stored kind and numbers. Typed, so a
// language without a sentence for a kind does not build. `{name}` parameters are the
// kind's numbers; a text with a count is a Plural.
import type { AttemptFailureKind, ConnectionError } from '../../../domain/attempt-failures.js'
import type { ResolvedBy } from '../../../domain/claims.js'
import type { Plural } from './words.js'

/** The failures said by one sentence of their own (the rest are made of other words). */
type OwnSentence = Exclude<AttemptFailureKind, 'connection' | 'answer'>

export interface StoredWords<P extends Plural = Plural> {
  /** Why an attempt failed, by kind: `{host}`, `{ms}`, `{status}`, `{rule}` (the URL rule's sentence). */
  failure: Record<OwnSentence, string>
  /** The connection errors. */
  connection: Record<ConnectionError, string>
  /** `notPaid` before the request was sent: `{status}`. */
  notPaidNotSent: string
  /** The order a request's answer came for, when it is gone. */
  orderGone: string
  /** A claim reporting the whole order. */
  claimOpenedOrder: string
  /** A claim reporting `{count}` delivered codes. */
  claimOpened: P
  /** `{count}` codes replaced, `{by}` (replacedBy). */
  claimReplaced: P
  replacedBy: Record<ResolvedBy, string>
  claimRefunded: Record<ResolvedBy, string>
  claimRejected: Record<ResolvedBy, string>
  claimEscalated: string
  /** Why an endpoint is disabled: through the API; failing since `{since}` (the last failure `{last}`, or none). */
  disabledByRequest: string
  disabledFailing: string
  disabledFailingNoLast: string
}
