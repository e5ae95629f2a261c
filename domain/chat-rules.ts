// Chat rules (docs/chat-rules.md): what a rule may say for each trigger. The
// request schema (schemas/chat-rules.ts) checks each property alone; here the
// properties are checked against the trigger and each other, the text parsed as
// a template, and the defaults applied, so the routes and the portal share one rule.
import { parseTemplate, type TemplateSegment } from './chat-rule-template.js'
import { foldText } from './chat-rule-keywords.js'
import { ruleOf, validationError, type DetailRule, type ErrorDetail } from './errors.js'

/** The order and claim events a rule can answer (section "Triggers" of the doc). */
export const eventTriggers = [
  'order.paid', 'order.delivered', 'order.completed', 'order.cancelled', 'claim.opened', 'claim.resolved'
] as const
export const chatRuleTriggers = [...eventTriggers, 'message.first', 'message.keyword', 'order.unconfirmed'] as const
export type ChatRuleTrigger = typeof chatRuleTriggers[number]

export const MAX_RULES_PER_SHOP = 100
/** Rule messages one order's chat takes at most, all rules together. */
export const MAX_RULE_MESSAGES_PER_ORDER = 20
export const MAX_RULE_NAME = 100
export const MAX_RULE_TEXT = 2000
export const MAX_KEYWORDS = 20
export const MAX_KEYWORD = 50
export const MAX_PRIORITY = 1000
export const MAX_COOLDOWN_SECONDS = 86_400
export const MIN_AFTER_MINUTES = 10
export const MAX_AFTER_MINUTES = 20_160

/** A rule's body as the schema let it through: the defaultable properties may be absent. */
export interface ChatRuleInput {
  name: string
  enabled?: boolean
  trigger: ChatRuleTrigger
  priority?: number
  productIds?: string[]
  keywords?: string[]
  cooldownSeconds?: number
  afterMinutes?: number | null
  callSeller?: boolean
  text: string
}

/** A rule as stored: trimmed, defaults applied, its text parsed. */
export interface ChatRuleFields {
  name: string
  enabled: boolean
  trigger: ChatRuleTrigger
  priority: number
  productIds: string[]
  keywords: string[]
  cooldownSeconds: number
  afterMinutes: number | null
  callSeller: boolean
  text: string
  template: TemplateSegment[]
}

/** The template of a rule's (or a preview's) text, or 400 naming the placeholder at `path`. */
export function ruleTemplate (text: string, trigger: ChatRuleTrigger, path = 'body.text'): TemplateSegment[] {
  const parsed = parseTemplate(text.trim(), trigger)
  if (!parsed.ok) {
    throw validationError(`Invalid text: ${parsed.problem}.`, [{ path, message: parsed.problem, rule: parsed.rule }])
  }
  return parsed.segments
}

/** Checks `input` against its trigger; the rule to store, or 400 naming every field at fault. */
export function chatRuleFields (input: ChatRuleInput): ChatRuleFields {
  const { trigger } = input
  const problems: ErrorDetail[] = []
  const refuse = (field: string, message: string, rule: DetailRule) => {
    problems.push({ path: `body.${field}`, message, rule })
  }
  const keywords = (input.keywords ?? []).map((keyword) => keyword.trim())
  if (trigger === 'message.keyword') {
    if (keywords.length === 0) {
      refuse('keywords', `must hold 1–${MAX_KEYWORDS} keywords for message.keyword`,
        ruleOf('x-keyword-count', { max: MAX_KEYWORDS }))
    }
    const seen = new Set<string>()
    for (const keyword of keywords) {
      const folded = foldText(keyword)
      if (seen.has(folded)) {
        refuse('keywords', `has "${keyword}" twice (ignoring case and spaces)`, ruleOf('x-keyword-twice', { keyword }))
      }
      seen.add(folded)
    }
  } else if (keywords.length > 0) {
    refuse('keywords', 'must be empty unless the trigger is message.keyword', ruleOf('x-keyword-only', {}))
  }
  const cooldownSeconds = input.cooldownSeconds ?? 0
  if (cooldownSeconds !== 0 && trigger !== 'message.keyword') {
    refuse('cooldownSeconds', 'must be 0 unless the trigger is message.keyword', ruleOf('x-keyword-only', {}))
  }
  const callSeller = input.callSeller ?? false
  if (callSeller && trigger !== 'message.keyword') {
    refuse('callSeller', 'must be false unless the trigger is message.keyword', ruleOf('x-keyword-only', {}))
  }
  const afterMinutes = input.afterMinutes ?? null
  if (trigger === 'order.unconfirmed' && afterMinutes === null) {
    refuse('afterMinutes', `is required for order.unconfirmed (${MIN_AFTER_MINUTES}–${MAX_AFTER_MINUTES})`,
      ruleOf('x-reminder-minutes', { min: MIN_AFTER_MINUTES, max: MAX_AFTER_MINUTES }))
  } else if (trigger !== 'order.unconfirmed' && afterMinutes !== null) {
    refuse('afterMinutes', 'must be null unless the trigger is order.unconfirmed', ruleOf('x-reminder-only', {}))
  }
  const productIds = input.productIds ?? []
  let template: TemplateSegment[] = []
  try {
    template = ruleTemplate(input.text, trigger)
  } catch (err) {
    problems.push(...((err as { details?: ErrorDetail[] }).details ?? []))
  }
  if (problems.length > 0) {
    throw validationError(`Invalid chat rule: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, problems)
  }
  return {
    name: input.name.trim(),
    enabled: input.enabled ?? true,
    trigger,
    priority: input.priority ?? 100,
    productIds,
    keywords,
    cooldownSeconds,
    afterMinutes,
    callSeller,
    text: input.text.trim(),
    template
  }
}
