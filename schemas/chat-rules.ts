// Chat rules (docs/chat-rules.md): the rule as the API shows it, the body of a
// create and of a full replacement, and the preview. Each property's own bounds
// are here; how they depend on the trigger is domain/chat-rules.ts.
import { Type, type Static } from '@sinclair/typebox'
import {
  chatRuleTriggers, MAX_AFTER_MINUTES, MAX_COOLDOWN_SECONDS, MAX_KEYWORD, MAX_KEYWORDS, MAX_PRIORITY,
  MAX_RULE_NAME, MAX_RULE_TEXT, MAX_RULES_PER_SHOP, MIN_AFTER_MINUTES
} from '../domain/chat-rules.js'
import { Id, Nullable, StringEnum, Timestamp } from './common.js'

const Trigger = StringEnum(chatRuleTriggers, {
  description: 'What the rule answers: an order or claim event (`order.paid`, `order.delivered`, ' +
    '`order.completed`, `order.cancelled`, `claim.opened`, `claim.resolved`), the buyer\'s first message ' +
    '(`message.first`), a buyer\'s message matching `keywords` (`message.keyword`), or an order still ' +
    '`awaiting_confirmation` `afterMinutes` after delivery (`order.unconfirmed`).'
})

const ruleProperties = {
  name: Type.String({
    maxLength: 2 * MAX_RULE_NAME,
    'x-trimmed-length': [1, MAX_RULE_NAME],
    description: `1–${MAX_RULE_NAME} characters after trimming (stored trimmed).`
  }),
  enabled: Type.Boolean({ description: 'Only enabled rules fire (default true).' }),
  trigger: Trigger,
  priority: Type.Integer({
    minimum: 0,
    maximum: MAX_PRIORITY,
    description: `0–${MAX_PRIORITY}, default 100: lower fires first, ties by \`createdAt\`.`
  }),
  productIds: Type.Array(Id, {
    uniqueItems: true,
    maxItems: 1000,
    description: 'The shop\'s products whose orders the rule answers; `[]` (the default): every product. ' +
      'A product that is not the shop\'s: 404 ORDER_NOT_FOUND.'
  }),
  keywords: Type.Array(Type.String({ maxLength: 2 * MAX_KEYWORD, 'x-trimmed-length': [1, MAX_KEYWORD] }), {
    maxItems: MAX_KEYWORDS,
    description: `For \`message.keyword\`: 1–${MAX_KEYWORDS} keywords of 1–${MAX_KEYWORD} characters, none twice ` +
      'ignoring case; `!help` or `/start` is a command (the message is it, or starts with it and a space), ' +
      'any other keyword matches as a whole word. Else `[]` (the default).'
  }),
  cooldownSeconds: Type.Integer({
    minimum: 0,
    maximum: MAX_COOLDOWN_SECONDS,
    description: `For \`message.keyword\`: 0–${MAX_COOLDOWN_SECONDS} s during which the rule does not answer ` +
      'again in the same chat. Else 0 (the default).'
  }),
  afterMinutes: Nullable(Type.Integer({ minimum: MIN_AFTER_MINUTES, maximum: MAX_AFTER_MINUTES }), {
    description: `For \`order.unconfirmed\` (required): ${MIN_AFTER_MINUTES}–${MAX_AFTER_MINUTES} minutes after ` +
      'delivery. Else null (the default).'
  }),
  callSeller: Type.Boolean({
    description: 'For `message.keyword`: each answer also puts `chat.seller_called` in the feed (default false).'
  }),
  text: Type.String({
    maxLength: 2 * MAX_RULE_TEXT,
    'x-trimmed-length': [1, MAX_RULE_TEXT],
    description: `The message, 1–${MAX_RULE_TEXT} characters after trimming, with placeholders \`{{orderId}}\`, ` +
      '`{{productTitle}}`, `{{quantity}}`, `{{amount}}`, `{{field:LABEL}}` and, for the claim triggers, ' +
      '`{{claimReason}}` and `{{claimRespondBy}}`. Never a delivered value.'
  })
}

export const ChatRuleSchema = Type.Object({
  id: Id,
  ...ruleProperties,
  afterMinutes: Nullable(Type.Integer()),
  firedCount: Type.Integer({ minimum: 0, description: 'Messages the rule has posted.' }),
  lastFiredAt: Nullable(Timestamp, { description: 'When it last posted; null until it has.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { 'x-component': 'ChatRule', title: 'Chat rule' })
export type ChatRule = Static<typeof ChatRuleSchema>

export const ChatRuleBody = Type.Object({
  name: ruleProperties.name,
  enabled: Type.Optional(ruleProperties.enabled),
  trigger: ruleProperties.trigger,
  priority: Type.Optional(ruleProperties.priority),
  productIds: Type.Optional(ruleProperties.productIds),
  keywords: Type.Optional(ruleProperties.keywords),
  cooldownSeconds: Type.Optional(ruleProperties.cooldownSeconds),
  afterMinutes: Type.Optional(ruleProperties.afterMinutes),
  callSeller: Type.Optional(ruleProperties.callSeller),
  text: ruleProperties.text
}, { 'x-component': 'ChatRuleInput' })
export type ChatRuleBody = Static<typeof ChatRuleBody>

export const ChatRuleData = Type.Object({ rule: ChatRuleSchema })
export const ChatRuleList = Type.Object({
  rules: Type.Array(ChatRuleSchema, {
    description: `Every rule of the shop (at most ${MAX_RULES_PER_SHOP}), by \`priority\` then \`createdAt\`; ` +
      'not paged.'
  })
})

export const ChatRulePreviewBody = Type.Object({
  text: ruleProperties.text,
  trigger: Trigger,
  orderId: Id
}, { 'x-component': 'ChatRulePreviewInput' })
export type ChatRulePreviewBody = Static<typeof ChatRulePreviewBody>

export const ChatRulePreview = Type.Object({
  text: Type.String({ description: 'The text as the rule would post it in that order\'s chat (empty: nothing).' })
})
