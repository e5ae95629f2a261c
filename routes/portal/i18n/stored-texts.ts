// Texts the service stores in English, said in the page's language from the kind
// stored beside them (docs/portal/building.md "Stored texts"): an attempt's failure and a
// chat's system message. A row written before its kind was kept has none: the page
// shows its stored text as it is (marked lang="en").
import type { PortalLocale } from '../../../domain/portal-token.js'
import type { AttemptFailure } from '../../../domain/attempt-failures.js'
import type { SystemMessage } from '../../../domain/system-messages.js'
import type { DisabledReason } from '../../../domain/disabled-reasons.js'
import { answerProblemSentence, ruleSentence } from './api-messages.js'
import { enStored } from './en-stored.js'
import { wordsOf } from './index.js'
import { ruStored } from './ru-stored.js'
import type { StoredWords } from './stored-words.js'
import { fill, pluralText } from './words.js'

const stored: Record<PortalLocale, StoredWords> = { en: enStored, ru: ruStored }

/** Why an attempt failed, in `locale`. */
export function failureSentence (locale: PortalLocale, failure: AttemptFailure): string {
  const words = stored[locale]
  switch (failure.kind) {
    case 'connection': return words.connection[failure.code]
    case 'answer': return failure.problems.map((problem) => answerProblemSentence(locale, problem)).join(' ')
    case 'urlRefused': return fill(words.failure.urlRefused, { rule: ruleSentence(locale, failure.rule) })
    case 'noPublicAddress': return fill(words.failure.noPublicAddress, { host: failure.host })
    case 'timeout': return fill(words.failure.timeout, { ms: failure.ms })
    case 'redirect': case 'status': return fill(words.failure[failure.kind], { status: failure.status })
    case 'answerNotUsed': {
      const status = failure.requestStatus as keyof ReturnType<typeof wordsOf>['deliveryRequestStatus']
      return fill(words.failure.answerNotUsed, { status: wordsOf(locale).deliveryRequestStatus[status] ?? status })
    }
    case 'notPaid': {
      const status = failure.orderStatus as keyof ReturnType<typeof wordsOf>['orderStatus'] | null
      const said = status === null ? words.orderGone : wordsOf(locale).orderStatus[status] ?? status
      return fill(failure.sent ? words.failure.notPaid : words.notPaidNotSent, { status: said })
    }
    default: return words.failure[failure.kind]
  }
}

/** Why an endpoint is disabled, in `locale`; `time` writes its times the page's way. */
export function disabledReasonSentence (
  locale: PortalLocale, reason: DisabledReason, time: (value: string) => string
): string {
  const words = stored[locale]
  if (reason.kind === 'byRequest') return words.disabledByRequest
  const since = time(reason.since)
  return reason.lastFailure
    ? fill(words.disabledFailing, { since, last: failureSentence(locale, reason.lastFailure) })
    : fill(words.disabledFailingNoLast, { since })
}

/** A chat's system message, in `locale`. */
export function systemMessageSentence (locale: PortalLocale, message: SystemMessage): string {
  const words = stored[locale]
  switch (message.kind) {
    case 'claimOpened':
      return message.count === 0 ? words.claimOpenedOrder : pluralText(locale, words.claimOpened, message.count)
    case 'claimReplaced':
      return pluralText(locale, words.claimReplaced, message.count, { by: words.replacedBy[message.by] })
    case 'claimRefunded': return words.claimRefunded[message.by]
    case 'claimRejected': return words.claimRejected[message.by]
    case 'claimEscalated': return words.claimEscalated
  }
}
