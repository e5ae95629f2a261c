// The statements of a buyer's message and the chat rules' answers to it
// (docs/chat-rules.md; the keyword matching is services/chat-rules/buyer-messages.ts):
// the post made at once when the order's shop has no message rule, the shop's
// keyword rules, the post made at once when no rule answers it (no keyword
// matched, no greeting due), and the post with the rules' answer as one statement
// (chat_rules_buyer_post, db/chat-rules/triggers.sql: it decides under the
// order's lock which matched rule answers: priority, cooldown, the cap).
import type { Db } from '../core/client.js'
import { preparedOnce, rawQuery, run } from '../core/sql.js'
import { notifyEvent, type EventOutcome } from '../events/statements.js'
import { postMessageSql, type Message } from '../orders/messages.js'

const messageRulesExist = `not (orders.external and exists (select 1 from chat_rules cr
  where cr.shop_id = orders.shop_id and cr.enabled and cr.trigger in ('message.first', 'message.keyword')))`

/**
 * The order's shop's rules are still of version $4, and no `message.first` rule
 * greets this message: the shop has none for the order's product, or the chat
 * has a buyer's message already. Part of the UPDATE that takes the order's row:
 * of two first messages at once, the second re-checks the row after the first
 * commits, but its subquery still sees no buyer's message, so it declines and
 * the post with the answer (under the order's lock) decides.
 */
const noAnswerDue = `(select s.chat_rules_version from shops s where s.id = orders.shop_id) = $4::bigint
  and not (orders.external and exists (select 1 from chat_rules cr where cr.shop_id = orders.shop_id and cr.enabled
      and cr.trigger = 'message.first' and (cardinality(cr.product_ids) = 0 or orders.product_id = any(cr.product_ids)))
    and not exists (select 1 from order_messages b where b.order_id = orders.id and b.sender_role = 'buyer'))`

/**
 * The buyer's post when `onlyIf` holds; otherwise nothing posted and one row
 * naming the order's shop and its rules' version.
 */
const postOrNameRulesSql = (onlyIf: string) => `${postMessageSql(false, onlyIf).replace('as "eventShopId" from r, o',
    'as "eventShopId", null::uuid as "rulesShopId", null::bigint as "rulesVersion" from r, o')}
  union all
  select null, null, null, null, null, null, s.id, s.chat_rules_version
  from orders x join shops s on s.id = x.shop_id
  where x.id = $1 and not exists (select 1 from o)`

type ProbeRow = Message & EventOutcome & { rulesShopId: string | null, rulesVersion: string | number | null }

/** A post of `postOrNameRulesSql`: the message, or the shop and its rules' version; undefined: no such order. */
async function postOrNameRules (
  db: Db, name: string, sql: string, params: unknown[]
): Promise<{ message: Message } | { rulesShopId: string, rulesVersion: number } | undefined> {
  const query = preparedOnce(db, name, () => rawQuery<ProbeRow>(db, sql))
  const [row] = await query(params)
  if (!row) return undefined
  if (row.rulesShopId === null) {
    const { eventShopId, rulesShopId: _shop, rulesVersion: _version, ...message } = row
    notifyEvent(db, { eventShopId })
    return { message }
  }
  return { rulesShopId: row.rulesShopId, rulesVersion: Number(row.rulesVersion) }
}

/** The buyer's post when the order's shop has no message rule ($1 order, $3 text). */
const postUnlessRulesSql = postOrNameRulesSql(messageRulesExist)
/** The buyer's post when no rule answers it ($4 the version of the shop's rules matched). */
const postUnlessAnsweredSql = postOrNameRulesSql(noAnswerDue)

const postAndAnswerSql = `select chat_rules_buyer_post($1::uuid, $2, $3::bigint,
  array(select value::uuid from jsonb_array_elements_text($4::text::jsonb))) as posted`

/**
 * Posts the buyer's message `text` when the order's shop has no message rule
 * (the message); otherwise posts nothing and names the shop and its rules'
 * version. Undefined when there is no such order.
 */
export const postUnlessRules = (db: Db, orderId: string, text: string) =>
  postOrNameRules(db, 'post_buyer_message', postUnlessRulesSql, [orderId, 'buyer', text])

/**
 * Posts the buyer's message `text` when no rule answers it: the caller matched
 * no keyword rule of the shop's rules of `version`, and no greeting is due
 * (the message); otherwise posts nothing and names the shop and its rules'
 * current version. Undefined when there is no such order.
 */
export const postUnlessAnswered = (db: Db, orderId: string, text: string, version: number) =>
  postOrNameRules(db, 'post_unanswered_buyer_message', postUnlessAnsweredSql, [orderId, 'buyer', text, version])

/**
 * The shop's enabled keyword rules in the order they answer, its rules' version,
 * and whether it has an enabled `message.first` rule (for any of its products).
 */
export async function keywordRulesOf (db: Db, shopId: string): Promise<{
  version: number | undefined, greets: boolean, rules: Array<{ id: string, keywords: string[] }>
}> {
  type Row = { version: string | number, greets: boolean, id: string | null, keywords: string[] | null }
  const rows = await run<Row>(db, `
    select s.chat_rules_version as version, r.id, to_jsonb(r.keywords) as keywords,
      exists (select 1 from chat_rules g where g.shop_id = s.id and g.enabled and g.trigger = 'message.first') as greets
    from shops s left join chat_rules r on r.shop_id = s.id and r.enabled and r.trigger = 'message.keyword'
    where s.id = $1 order by r.priority, r.created_at, r.id`, [shopId])
  return {
    version: rows[0] === undefined ? undefined : Number(rows[0].version),
    greets: rows[0]?.greets ?? false,
    rules: rows.filter((row) => row.id !== null).map((row) => ({ id: row.id!, keywords: row.keywords! }))
  }
}

/**
 * The buyer's post and the rules' answer among `candidates` (the keyword rules
 * that matched the shop's rules of `version`), one statement: the message; or,
 * when the shop's rules are no longer of that version, nothing posted and the
 * current version. Undefined when there is no such order.
 */
export async function postAndAnswer (
  db: Db, orderId: string, text: string, version: number, candidates: string[]
): Promise<{ message: Message } | { rulesVersion: number } | undefined> {
  const post = preparedOnce(db, 'post_and_answer_buyer_message',
    () => rawQuery<{ posted: PostedByFunction | null }>(db, postAndAnswerSql))
  const [{ posted }] = await post([orderId, text, version, JSON.stringify(candidates)])
  if (posted === null) return undefined
  if (!('message' in posted)) return { rulesVersion: Number(posted.rulesVersion) }
  notifyEvent(db, { eventShopId: posted.eventShopId })
  return { message: posted.message }
}

type PostedByFunction = { message: Message, eventShopId: string | null } | { rulesVersion: string | number }
