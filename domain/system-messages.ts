// The chat's `system` messages (docs/claims.md): what happened, as a kind and its
// numbers, never a value. The API returns the English text made here, as it is
// stored; the kind is stored beside it (order_messages.meaning) so that the portal
// says the same in the page's language (routes/portal/i18n/, `systemMessage`).
import type { ResolvedBy } from './claims.js'

export type SystemMessage =
  /** `count` delivered values reported; 0: the whole order. */
  | { kind: 'claimOpened', count: number }
  | { kind: 'claimReplaced', by: ResolvedBy, count: number }
  | { kind: 'claimRefunded', by: ResolvedBy }
  | { kind: 'claimRejected', by: ResolvedBy }
  | { kind: 'claimEscalated' }
export type SystemMessageKind = SystemMessage['kind']

const values = (count: number, what = '') => `${count} ${what}${count === 1 ? 'value' : 'values'}`
const byWhom = (by: ResolvedBy) => by === 'operator' ? ' by the marketplace' : ' by the shop'

/** The message in the API's (English) words. */
export function systemMessageText (message: SystemMessage): string {
  switch (message.kind) {
    case 'claimOpened': return 'The buyer opened a claim: ' +
      `${message.count === 0 ? 'the order' : values(message.count, 'delivered ')} reported as not working as described.`
    case 'claimReplaced': return `Claim resolved: ${values(message.count)} replaced` +
      `${message.by === 'auto' ? ' automatically from stock' : byWhom(message.by)}.`
    case 'claimRefunded': return 'Claim resolved: the order was refunded' +
      `${message.by === 'auto' ? ' because the shop did not answer in time' : byWhom(message.by)}.`
    case 'claimRejected': return `Claim rejected${byWhom(message.by)}.`
    case 'claimEscalated': return 'The buyer escalated the claim to the marketplace.'
  }
}
