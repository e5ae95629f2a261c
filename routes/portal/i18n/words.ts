// The types of the portal's words for the values of the service's enums (their
// words are in enum-words.ts, one typed map per enum holding both languages), the
// words of one language as the pages read them, and the texts that hold a count, in
// the forms Intl.PluralRules names for each language (ru: 1, 2, 5, 21 codes take the
// forms one, few, many, one).
import type { ChatRuleTrigger } from '../../../domain/chat-rules.js'
import type { ClaimReason, ClaimStatus, ResolvedBy } from '../../../domain/claims.js'
import type { EventType } from '../../../domain/event-types.js'
import type { SenderRole } from '../../../domain/message-rules.js'
import type { OrderStatus } from '../../../domain/order-transitions.js'
import type { Order } from '../../../schemas/orders.js'
import type { PortalLocale } from '../../../domain/portal-token.js'
import type { SalesGrouping } from '../../../domain/sales-stats.js'
import type { SalesPreset } from '../../../domain/sales-periods.js'
import type { SendStatus } from '../../../domain/webhook-sends.js'
import type { DeliveryRequestStatus } from '../../../domain/delivery-answer.js'
import type { AutoDelivery, StockItemStatus } from '../../../domain/stock-rules.js'

/** What the portal records in the shop's activity log (routes/portal/activity.ts). */
export const ACTIVITY_ACTIONS = [
  'session.entered', 'session.signedOut', 'apiKey.created', 'apiKey.revoked',
  'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.rotated', 'webhook.tested', 'webhook.retried',
  'webhook.retriedFailed',
  'delivery.saved', 'delivery.deleted', 'delivery.rotated', 'delivery.tested',
  'claim.replaced', 'claim.refunded', 'claim.rejected',
  'stock.added', 'stock.removed', 'stock.updated',
  'chatRule.created', 'chatRule.updated', 'chatRule.enabled', 'chatRule.disabled', 'chatRule.deleted',
  'order.taken', 'order.delivered', 'order.cancelled', 'order.replied', 'order.revealed'
] as const
export type ActivityAction = typeof ACTIVITY_ACTIONS[number]
/** The actions whose record counts codes: their text agrees with the count. */
type CountingAction = 'claim.replaced' | 'stock.added' | 'stock.removed'

/** A text with a count, in each plural form of English. */
export type EnPlural = Record<'one' | 'other', string>
/** A text with a count, in each plural form of Russian (`other`: fractions). */
export type RuPlural = Record<'one' | 'few' | 'many' | 'other', string>
export type Plural = EnPlural | RuPlural

export interface Words<P extends Plural = Plural> {
  claimStatus: Record<ClaimStatus, string>
  claimReason: Record<ClaimReason, string>
  /** Who settled a claim, as "settled {by}". */
  resolvedBy: Record<ResolvedBy, string>
  autoDelivery: Record<AutoDelivery, string>
  stockItemStatus: Record<StockItemStatus, string>
  salesGrouping: Record<SalesGrouping, string>
  /** The Sales page's preset ranges. */
  salesPreset: Record<SalesPreset, string>
  /** A webhook attempt's status in an endpoint's log. */
  attemptStatus: Record<SendStatus, string>
  deliveryRequestStatus: Record<DeliveryRequestStatus, string>
  /** A chat rule's trigger, as the Auto-replies page names it. */
  chatRuleTrigger: Record<ChatRuleTrigger, string>
  orderStatus: Record<OrderStatus, string>
  /** Who handles an order (its assigneeType). */
  assignee: Record<Order['assigneeType'], string>
  /** Who wrote a chat message. */
  senderRole: Record<SenderRole, string>
  /** What an event of the shop's feed says happened, on an order's page. */
  eventType: Record<EventType, string>
  /** One line saying what an event kind means, beside its box on the webhook endpoint's form. */
  eventMeaning: Record<EventType, string>
  /** What an activity record says; `{name}` parameters are its details. */
  activity: Record<Exclude<ActivityAction, CountingAction>, string> & Record<CountingAction, P>
  /** The confirmation of removing `{count}` codes from stock. */
  removeCodes: P
  /** A product's paid orders waiting for codes, on the Stock pages. */
  waitingOrders: P
  /** The waiting orders an upload or turning automatic delivery on delivered, before their list. */
  filledOrders: P
  /** The link that selects every code of the page, for removal. */
  selectCodes: P
  /** How many messages a chat rule has posted, on the Auto-replies page. */
  rulePosted: P
  /** A replacement's confirmation: `{count}` codes go out from stock. */
  replaceCodes: P
  /** The notice after `Retry all failed`: `{count}` deliveries attempted again. */
  retriedFailed: P
}

/** A word in both languages; `CountText`: a text with a count, in each language's plural forms. */
export interface BothLanguages<E = string, R = string> { en: E, ru: R }
type CountText = BothLanguages<EnPlural, RuPlural>
type EachValue<Value extends string> = Record<Value, BothLanguages>

/** The words of enum-words.ts: Words, each value holding both languages. */
export interface EnumWords {
  claimStatus: EachValue<ClaimStatus>
  claimReason: EachValue<ClaimReason>
  resolvedBy: EachValue<ResolvedBy>
  autoDelivery: EachValue<AutoDelivery>
  stockItemStatus: EachValue<StockItemStatus>
  salesGrouping: EachValue<SalesGrouping>
  salesPreset: EachValue<SalesPreset>
  attemptStatus: EachValue<SendStatus>
  deliveryRequestStatus: EachValue<DeliveryRequestStatus>
  chatRuleTrigger: EachValue<ChatRuleTrigger>
  orderStatus: EachValue<OrderStatus>
  assignee: EachValue<Order['assigneeType']>
  senderRole: EachValue<SenderRole>
  eventType: EachValue<EventType>
  eventMeaning: EachValue<EventType>
  activity: EachValue<Exclude<ActivityAction, CountingAction>> & Record<CountingAction, CountText>
  removeCodes: CountText
  waitingOrders: CountText
  filledOrders: CountText
  selectCodes: CountText
  rulePosted: CountText
  replaceCodes: CountText
  retriedFailed: CountText
}

const isBoth = (value: object): value is BothLanguages<unknown, unknown> => 'en' in value && 'ru' in value

/** One language's words out of `both`: each map's values, and each text with a count, in `locale`. */
export function wordsIn (both: EnumWords, locale: 'en'): Words<EnPlural>
export function wordsIn (both: EnumWords, locale: 'ru'): Words<RuPlural>
export function wordsIn (both: EnumWords, locale: PortalLocale): Words
export function wordsIn (both: EnumWords, locale: PortalLocale): Words {
  const pick = (value: object) => (isBoth(value) ? value[locale] : undefined)
  return Object.fromEntries(Object.entries(both).map(([name, map]: [string, object]) => [
    name,
    pick(map) ?? Object.fromEntries(Object.entries(map).map(([value, words]: [string, object]) => [value, pick(words)]))
  ])) as unknown as Words
}

const pluralRules: Record<PortalLocale, Intl.PluralRules> = {
  en: new Intl.PluralRules('en'),
  ru: new Intl.PluralRules('ru')
}

/** The form of `text` for `count` in `locale`, its `{name}` parameters filled in (`{count}` too). */
export function pluralText (locale: PortalLocale, text: Plural, count: number,
  params: Record<string, string | number> = {}): string {
  const forms = text as Partial<Record<Intl.LDMLPluralRule, string>>
  return fill(forms[pluralRules[locale].select(count)] ?? forms.other!, { count, ...params })
}

/** `text` with its `{name}` parameters replaced; an unknown one is left as it is. */
export function fill (text: string, params: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
}
