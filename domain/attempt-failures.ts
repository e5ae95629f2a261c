// Why an attempt to an endpoint failed (a webhook's send, a delivery request), as
// a kind and its numbers. The API keeps returning the English sentence made here
// (`lastError`, an attempt's `error`), stored as it is; the kind is stored beside
// it (webhook_deliveries.last_error_detail, an attempt's `failure` in attempt_log)
// so that the portal says the same in the page's language (routes/portal/i18n/).
import { problemText, type AnswerProblem } from './delivery-answer.js'
import type { DetailRule } from './errors.js'

/** The connection errors named in their own words; any other error is `beforeAnswer`. */
export const connectionErrors = {
  ECONNREFUSED: 'The connection was refused.',
  ECONNRESET: 'The connection was reset before an answer.',
  UND_ERR_SOCKET: 'The connection closed before an answer.',
  ENOTFOUND: 'The host name does not resolve.',
  EAI_AGAIN: 'The host name could not be resolved (temporary DNS failure).',
  EHOSTUNREACH: 'The host is unreachable.',
  ENETUNREACH: 'The network is unreachable.'
} as const
export type ConnectionError = keyof typeof connectionErrors

export type AttemptFailure =
  /** The URL breaks the egress rules now (`problem`: the API's words for `rule`). */
  | { kind: 'urlRefused', problem: string, rule: DetailRule }
  /** `reasons`: why each address the name resolves to is refused (the API's words). */
  | { kind: 'noPublicAddress', host: string, reasons: string }
  | { kind: 'connection', code: ConnectionError }
  | { kind: 'timeout', ms: number }
  /** The caller went away or the instance is shutting down. */
  | { kind: 'cutShort' }
  /** Any other error before an answer; `message`: the error's own (English) words. */
  | { kind: 'beforeAnswer', message: string }
  | { kind: 'redirect' | 'status', status: number }
  | { kind: 'notSerialized' }
  /** The order's values could not be decrypted; `message`: why, in the API's words. */
  | { kind: 'cannotDecrypt', message: string }
  /** Handed back by a shutdown: made again. */
  | { kind: 'shutdown' }
  /** A delivery request's answer, and what is wrong with it (domain/delivery-answer.ts). */
  | { kind: 'answer', problems: AnswerProblem[] }
  /** A valid answer came after the request had ended with `requestStatus`. */
  | { kind: 'answerNotUsed', requestStatus: string }
  /** The order left `paid` (`orderStatus`; null: gone) before the request was sent, or before its answer. */
  | { kind: 'notPaid', orderStatus: string | null, sent: boolean }
  | { kind: 'endpointDisabled' | 'endpointDisabledFailing' | 'deliveryEndpointDeleted' }
export type AttemptFailureKind = AttemptFailure['kind']

/** The failure in the API's (English) words, as `lastError` and an attempt's `error` have always said it. */
export function failureText (failure: AttemptFailure): string {
  switch (failure.kind) {
    case 'urlRefused': return `Not sent: the URL ${failure.problem}.`
    case 'noPublicAddress': return `Not sent: ${failure.host} resolves to no public address ` +
      `(${failure.reasons}); webhooks go to public addresses only.`
    case 'connection': return connectionErrors[failure.code]
    case 'timeout': return `No answer within ${failure.ms} ms.`
    case 'cutShort': return 'Cut short before an answer (the caller went away or the instance is shutting down).'
    case 'beforeAnswer': return failure.message
    case 'redirect': return `HTTP ${failure.status}: redirects are not followed.`
    case 'status': return `HTTP ${failure.status}.`
    case 'notSerialized': return 'Not sent: the event could not be serialized.'
    case 'cannotDecrypt': return `Not sent: ${failure.message}`
    case 'shutdown': return 'The attempt was cut short by a shutdown; it is made again.'
    case 'answer': return failure.problems.map(problemText).join(' ')
    case 'answerNotUsed': return 'Answer not used: the request had already ' +
      `${failure.requestStatus === 'succeeded' ? 'delivered the order' : `ended (${failure.requestStatus})`}.`
    case 'notPaid': return `${failure.sent ? 'Answer not used' : 'Not sent'}: the order is ` +
      `${failure.orderStatus ?? (failure.sent ? 'undefined' : 'gone')}, no longer paid.`
    case 'endpointDisabled': return 'Not sent: the endpoint was disabled.'
    case 'endpointDisabledFailing': return 'Not sent: the endpoint was disabled after failing for 5 days.'
    case 'deliveryEndpointDeleted': return 'Not sent: the delivery endpoint was deleted.'
  }
}
