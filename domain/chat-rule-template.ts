// A chat rule's text as a template (docs/chat-rules.md, "Placeholders"): parsed
// once when the rule is saved into segments the database renders when it fires
// (chat_rule_text in db/chat-rules/triggers.sql), so firing never parses.
// No placeholder reaches a delivered value or a stock code: the chat is not sealed.
import type { ChatRuleTrigger } from './chat-rules.js'
import { ruleOf, type DetailRule } from './errors.js'

/** Literal text, a value of the order (or of its claim), or the buyer's value of a field, by label. */
export type TemplateSegment = { text: string } | { placeholder: string } | { field: string }

export const orderPlaceholders = ['orderId', 'productTitle', 'quantity', 'amount'] as const
export const claimPlaceholders = ['claimReason', 'claimRespondBy'] as const
/** `{{field:LABEL}}`: the value the buyer gave for the order's field labelled LABEL. */
export const FIELD_PREFIX = 'field:'

const claimTriggers: readonly ChatRuleTrigger[] = ['claim.opened', 'claim.resolved']

/** The placeholders a rule of `trigger` may use (besides `field:LABEL`). */
export function placeholdersOf (trigger: ChatRuleTrigger): readonly string[] {
  return claimTriggers.includes(trigger) ? [...orderPlaceholders, ...claimPlaceholders] : orderPlaceholders
}

export type TemplateResult =
  { ok: true, segments: TemplateSegment[] } | { ok: false, problem: string, rule: DetailRule }

/**
 * Parses `text` (trimmed) for a rule of `trigger`: its segments, or the first
 * problem, naming the placeholder — an unknown one, a claim placeholder on
 * another trigger, or a `{{` without its `}}`. Spaces inside the braces are allowed.
 */
export function parseTemplate (text: string, trigger: ChatRuleTrigger): TemplateResult {
  const allowed = placeholdersOf(trigger)
  const segments: TemplateSegment[] = []
  let rest = text
  for (;;) {
    const open = rest.indexOf('{{')
    if (open === -1) break
    const close = rest.indexOf('}}', open + 2)
    if (close === -1) {
      const text = rest.slice(open, open + 30)
      return { ok: false, problem: `"${text}" has no closing "}}"`, rule: ruleOf('x-template-unclosed', { text }) }
    }
    if (open > 0) segments.push({ text: rest.slice(0, open) })
    const name = rest.slice(open + 2, close).trim()
    if (name.startsWith(FIELD_PREFIX) && name.length > FIELD_PREFIX.length) {
      segments.push({ field: name.slice(FIELD_PREFIX.length).trim() })
    } else if (allowed.includes(name)) {
      segments.push({ placeholder: name })
    } else if ((claimPlaceholders as readonly string[]).includes(name)) {
      return {
        ok: false,
        problem: `the placeholder {{${name}}} is only for the claim triggers`,
        rule: ruleOf('x-placeholder-claims', { name: `{{${name}}}` })
      }
    } else {
      return {
        ok: false,
        problem: `unknown placeholder {{${name}}}`,
        rule: ruleOf('x-placeholder-unknown', { name: `{{${name}}}` })
      }
    }
    rest = rest.slice(close + 2)
  }
  if (rest !== '') segments.push({ text: rest })
  return { ok: true, segments }
}
