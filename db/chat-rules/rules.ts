// A shop's chat rules (docs/chat-rules.md): list, create, read, replace, delete.
// Every change first raises the shop's `chat_rules_version`, which takes the
// shop row's lock — the lock every event's append takes (db/events/statements.ts)
// before the rules fire at commit — so a change and a firing never wait on each
// other in opposite orders, the 100-rule limit is counted under that lock, and
// every instance's cached keyword matchers (db/chat-rules/buyer-messages.ts) see
// the new version on their next buyer message.
import { ApiError, notFound } from '../../domain/errors.js'
import { MAX_RULES_PER_SHOP, type ChatRuleFields } from '../../domain/chat-rules.js'
import { isUuid } from '../../domain/ids.js'
import type { Queryable, Tx } from '../core/client.js'
import { run } from '../core/sql.js'
import { isoTime, NOW_MS } from '../core/time.js'

/** A rule as ChatRuleSchema shows it: its fields as stored (without the parsed text), and what the service keeps. */
export type ChatRule = Omit<ChatRuleFields, 'template'> & {
  id: string
  firedCount: number
  lastFiredAt: string | null
  createdAt: string
  updatedAt: string
}

/** A column of rule `r`'s counters (chat_rule_counters, kept by chat_rules_post); null before it has posted. */
const counter = (r: string, column: string) =>
  `(select k.${column} from chat_rule_counters k where k.rule_id = ${r}.id)`

const ruleColumns = (r: string) => `${r}.id, ${r}.name, ${r}.enabled, ${r}.trigger, ${r}.priority,
  to_jsonb(${r}.product_ids) as "productIds", to_jsonb(${r}.keywords) as keywords,
  ${r}.cooldown_seconds as "cooldownSeconds", ${r}.after_minutes as "afterMinutes",
  ${r}.call_seller as "callSeller", ${r}.text,
  coalesce(${counter(r, 'fired_count')}, 0) as "firedCount", ${isoTime(counter(r, 'last_fired_at'))} as "lastFiredAt",
  ${isoTime(`${r}.created_at`)} as "createdAt", ${isoTime(`${r}.updated_at`)} as "updatedAt"`

export const ruleNotFound = () => new ApiError('NOT_FOUND', 'Chat rule not found.')

/** Every rule of the shop, by priority then creation. */
export function listChatRules (db: Queryable, shopId: string): Promise<ChatRule[]> {
  return run<ChatRule>(db, `select ${ruleColumns('r')} from chat_rules r where r.shop_id = $1
    order by r.priority, r.created_at, r.id`, [shopId])
}

/** One rule of the shop; 404 NOT_FOUND for another shop's, an unknown or a malformed id. */
export async function getChatRule (db: Queryable, shopId: string, ruleId: string): Promise<ChatRule> {
  if (!isUuid(ruleId)) throw ruleNotFound()
  const [rule] = await run<ChatRule>(db, `select ${ruleColumns('r')} from chat_rules r
    where r.id = $1 and r.shop_id = $2`, [ruleId, shopId])
  if (!rule) throw ruleNotFound()
  return rule
}

/** Raises the shop's rules version, taking its row's lock for the rest of `tx`. */
async function lockShopRules (tx: Tx, shopId: string): Promise<void> {
  await run(tx, 'update shops set chat_rules_version = chat_rules_version + 1 where id = $1', [shopId])
}

/** 404 ORDER_NOT_FOUND, as the product endpoints answer, when a product id is not the shop's. */
async function checkProducts (tx: Tx, shopId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return
  const [{ found }] = await run<{ found: number }>(tx, `select count(*)::int as found from products
    where shop_id = $1 and id in (select value::uuid from jsonb_array_elements_text($2::text::jsonb))`,
  [shopId, JSON.stringify(productIds)])
  if (found !== productIds.length) throw notFound('Product')
}

/** The rule's fields as the statements below bind them, from $n on. */
const fieldParams = (fields: ChatRuleFields) => [
  fields.name, fields.enabled, fields.trigger, fields.priority, JSON.stringify(fields.productIds),
  JSON.stringify(fields.keywords), fields.cooldownSeconds, fields.afterMinutes, fields.callSeller, fields.text,
  JSON.stringify(fields.template)
]
const productIdsSql = (n: number) => `array(select value::uuid from jsonb_array_elements_text($${n}::text::jsonb))`
const keywordsSql = (n: number) => `array(select value from jsonb_array_elements_text($${n}::text::jsonb))`

/** Creates a rule of the shop; 409 CHAT_RULE_LIMIT when it has its 100 already. */
export async function createChatRule (tx: Tx, shopId: string, fields: ChatRuleFields): Promise<ChatRule> {
  await lockShopRules(tx, shopId)
  const [{ rules }] = await run<{ rules: number }>(tx,
    'select count(*)::int as rules from chat_rules where shop_id = $1', [shopId])
  if (rules >= MAX_RULES_PER_SHOP) throw new ApiError('CHAT_RULE_LIMIT')
  await checkProducts(tx, shopId, fields.productIds)
  const [rule] = await run<ChatRule>(tx, `with r as (
      insert into chat_rules (shop_id, name, enabled, trigger, priority, product_ids, keywords, cooldown_seconds,
        after_minutes, call_seller, text, template)
      values ($1, $2, $3, $4, $5, ${productIdsSql(6)}, ${keywordsSql(7)}, $8, $9, $10, $11, $12::text::jsonb)
      returning *
    ) select ${ruleColumns('r')} from r`, [shopId, ...fieldParams(fields)])
  return rule
}

/**
 * Replaces a rule of the shop (its counts kept). Enabling it moves the moment it
 * fires from; a new `afterMinutes` moves its pending reminders' due times (those a
 * scheduler is posting right now keep theirs).
 */
export async function replaceChatRule (
  tx: Tx, shopId: string, ruleId: string, fields: ChatRuleFields
): Promise<ChatRule> {
  await lockShopRules(tx, shopId)
  await checkProducts(tx, shopId, fields.productIds)
  const [rule] = await run<ChatRule>(tx, `with old as (
      select id, enabled from chat_rules where id = $1 and shop_id = $2 for update
    ), r as (
      update chat_rules c set name = $3, enabled = $4, trigger = $5, priority = $6, product_ids = ${productIdsSql(7)},
        keywords = ${keywordsSql(8)}, cooldown_seconds = $9, after_minutes = $10, call_seller = $11, text = $12,
        template = $13::text::jsonb, updated_at = ${NOW_MS},
        enabled_at = case when $4 and not old.enabled then ${NOW_MS} else c.enabled_at end
      from old where c.id = old.id
      returning c.*
    ) select ${ruleColumns('r')} from r`, [ruleId, shopId, ...fieldParams(fields)])
  if (!rule) throw ruleNotFound()
  if (fields.afterMinutes !== null) {
    await run(tx, `update chat_rule_reminders c set due_at = c.delivered_at + make_interval(mins => $2::int)
      where (c.rule_id, c.order_id) in (select rule_id, order_id from chat_rule_reminders
        where rule_id = $1 for update skip locked)`, [ruleId, fields.afterMinutes])
  }
  return rule
}

/** Deletes a rule of the shop; its messages keep their `ruleId`. Returns it as it was. */
export async function deleteChatRule (tx: Tx, shopId: string, ruleId: string): Promise<ChatRule> {
  await lockShopRules(tx, shopId)
  const [rule] = await run<ChatRule>(tx, `with r as (
      delete from chat_rules where id = $1 and shop_id = $2 returning *
    ) select ${ruleColumns('r')} from r`, [ruleId, shopId])
  if (!rule) throw ruleNotFound()
  // Reminders a scheduler holds right now are skipped: it finds the rule gone and posts nothing.
  await run(tx, `delete from chat_rule_reminders where (rule_id, order_id) in (select rule_id, order_id
    from chat_rule_reminders where rule_id = $1 for update skip locked)`, [ruleId])
  return rule
}
