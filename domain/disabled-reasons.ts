// Why a webhook endpoint is disabled, as a kind and its numbers. The API keeps
// returning the English sentence made here (`disabledReason`), stored as it is; the
// kind is stored beside it (webhook_endpoints.disabled_detail) so that the portal says
// the same in the page's language (routes/portal/i18n/stored-texts.ts).
import type { AttemptFailure } from './attempt-failures.js'

export type DisabledReason =
  | { kind: 'byRequest' }
  /** Every attempt since `since` (ISO) failed; `last`: the last one's failure in the API's words, and as a kind. */
  | { kind: 'failing', since: string, last: string | null, lastFailure: AttemptFailure | null }

/** The reason in the API's (English) words, as `disabledReason` has always said it. */
export function disabledReasonText (reason: DisabledReason): string {
  if (reason.kind === 'byRequest') return 'Disabled through the API.'
  return `Every delivery attempt since ${reason.since} failed (last: ${reason.last}). ` +
    'Fix the endpoint, then enable it again.'
}
