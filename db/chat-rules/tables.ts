// The chat rules' tables (docs/chat-rules.md): a shop's rules, and the reminders
// of `order.unconfirmed` rules waiting for their due time. The rules' firing lives
// in the database (db/chat-rules/triggers.sql): the rows here are its whole state.
import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import type { TemplateSegment } from '../../domain/chat-rule-template.js'
import { id, shops, stamp, ts } from '../tables.js'

export const chatRules = pgTable('chat_rules', {
  id: id(),
  shopId: uuid('shop_id').notNull().references(() => shops.id),
  name: text('name').notNull(),
  enabled: boolean('enabled').notNull(),
  trigger: text('trigger').notNull(),
  priority: integer('priority').notNull(),
  productIds: uuid('product_ids').array().notNull(),
  keywords: text('keywords').array().notNull(),
  cooldownSeconds: integer('cooldown_seconds').notNull(),
  afterMinutes: integer('after_minutes'),
  callSeller: boolean('call_seller').notNull(),
  text: text('text').notNull(),
  /** `text` parsed (domain/chat-rule-template.ts): what the database renders. */
  template: jsonb('template').$type<TemplateSegment[]>().notNull(),
  /** No longer written (since migration 0016: chat_rule_counters); kept for the previous version's instances. */
  firedCount: integer('fired_count').notNull().default(0),
  /** No longer written, as firedCount. */
  lastFiredAt: ts('last_fired_at'),
  /** When the rule was created or last enabled: it fires for what commits after it. */
  enabledAt: stamp('enabled_at'),
  createdAt: stamp('created_at'),
  updatedAt: stamp('updated_at')
}, (t) => [
  index('chat_rules_shop_idx').on(t.shopId, t.priority, t.createdAt),
  index('chat_rules_firing_idx').on(t.shopId, t.trigger).where(sql`enabled`)
])

/**
 * One row per `order.unconfirmed` rule and order delivered while it was enabled,
 * until it is due: the scheduler of every instance takes the due rows with FOR
 * UPDATE SKIP LOCKED and deletes each in the transaction that posts its reminder.
 */
export const chatRuleReminders = pgTable('chat_rule_reminders', {
  ruleId: uuid('rule_id').notNull(),
  orderId: uuid('order_id').notNull(),
  deliveredAt: ts('delivered_at').notNull(),
  dueAt: ts('due_at').notNull()
}, (t) => [
  primaryKey({ columns: [t.ruleId, t.orderId] }),
  index('chat_rule_reminders_due_idx').on(t.dueAt)
])

/** A rule's count of the messages it has posted (chat_rules_post keeps it), apart from the rule's wide row. */
export const chatRuleCounters = pgTable('chat_rule_counters', {
  ruleId: uuid('rule_id').primaryKey().references(() => chatRules.id, { onDelete: 'cascade' }),
  firedCount: integer('fired_count').notNull(),
  lastFiredAt: ts('last_fired_at').notNull()
})
