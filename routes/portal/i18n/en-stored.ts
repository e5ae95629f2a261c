// The English words for the stored texts (stored-words.ts): the API's own sentences,
// with codes where the API says values, and real plurals.
import { connectionErrors } from '../../../domain/attempt-failures.js'
import type { EnPlural } from './words.js'
import type { StoredWords } from './stored-words.js'

export const enStored: StoredWords<EnPlural> = {
  failure: {
    urlRefused: 'Not sent: the address is not allowed now. {rule}',
    noPublicAddress: 'Not sent: {host} resolves to no public address; webhooks go to public addresses only.',
    timeout: 'No answer within {ms} ms.',
    cutShort: 'Cut short before an answer (the caller went away or the service was stopping).',
    beforeAnswer: 'The request failed before an answer.',
    redirect: 'HTTP {status}: redirects are not followed.',
    status: 'Answered HTTP {status}.',
    notSerialized: 'Not sent: the event could not be written as JSON.',
    cannotDecrypt: 'Not sent: the order\'s codes could not be decrypted.',
    shutdown: 'The attempt was cut short by a shutdown; it is made again.',
    answerNotUsed: 'Answer not used: the request had already ended ({status}).',
    notPaid: 'Answer not used: the order is {status}, no longer paid.',
    endpointDisabled: 'Not sent: the endpoint was disabled.',
    endpointDisabledFailing: 'Not sent: the endpoint was disabled after failing for 5 days.',
    deliveryEndpointDeleted: 'Not sent: the delivery endpoint was deleted.'
  },
  // The API's own sentences for them (domain/attempt-failures.ts).
  connection: connectionErrors,
  notPaidNotSent: 'Not sent: the order is {status}, no longer paid.',
  orderGone: 'gone',
  claimOpenedOrder: 'The buyer opened a claim: the whole order is reported as not working as described.',
  claimOpened: {
    one: 'The buyer opened a claim: {count} delivered code is reported as not working as described.',
    other: 'The buyer opened a claim: {count} delivered codes are reported as not working as described.'
  },
  claimReplaced: {
    one: 'Claim resolved: {count} code replaced {by}.',
    other: 'Claim resolved: {count} codes replaced {by}.'
  },
  replacedBy: { seller: 'by the shop', auto: 'automatically from stock', operator: 'by the marketplace' },
  claimRefunded: {
    seller: 'Claim resolved: the order was refunded by the shop.',
    auto: 'Claim resolved: the order was refunded because the shop did not answer in time.',
    operator: 'Claim resolved: the order was refunded by the marketplace.'
  },
  claimRejected: {
    seller: 'Claim rejected by the shop.',
    auto: 'Claim rejected by the shop.',
    operator: 'Claim rejected by the marketplace.'
  },
  claimEscalated: 'The buyer escalated the claim to the marketplace.',
  disabledByRequest: 'Disabled through the API.',
  disabledFailing: 'Every delivery attempt since {since} failed (the last: {last}) Fix the endpoint, then enable it ' +
    'again.',
  disabledFailingNoLast: 'Every delivery attempt since {since} failed. Fix the endpoint, then enable it again.'
}
