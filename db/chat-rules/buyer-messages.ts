// The statements of a buyer's message and the chat rules' answers to it
// (docs/chat-rules.md; the keyword matching is services/chat-rules/buyer-messages.ts):
// the post made at once when the order's shop has no message rule, the shop's
// keyword rules, and the post with the rules' answer as one statement
// (chat_rules_buyer_post, db/chat-rules/triggers.sql: chat_rules_answer decides
// under the order's lock which matched rule answers: priority, cooldown, the cap).
import type { Db } from '../core/client.js'
import { preparedOnce, rawQuery, run } from '../core/sql.js'
import { notifyEvent, type EventOutcome } from '../events/statements.js'
import { postMessageSql, type Message } from '../orders/messages.js'

const messageRulesExist = `not (orders.external and exists (select 1 from chat_rules cr
  where cr.shop_id = orders.shop_id and cr.enabled and cr.trigger in ('message.first', 'message.keyword')))`

/**
 * The buyer's post when the order's shop has no message rule; otherwise it posts
 * nothing and its one row names the shop and its rules' version. $1 order, $3 text.
 */
const postUnlessRulesSql = `${postMessageSql(false, messageRulesExist).replace('as "eventShopId" from r, o',
    'as "eventShopId", null::uuid as "rulesShopId", null::bigint as "rulesVersion" from r, o')}
  union all
  select null, null, null, null, null, null, s.id, s.chat_rules_version
  from orders x join shops s on s.id = x.shop_id
  where x.id = $1 and not exists (select 1 from o)`

type ProbeRow = Message & EventOutcome & { rulesShopId: string | null, rulesVersion: string | number | null }

const postAndAnswerSql = `select chat_rules_buyer_post($1::uuid, $2, $3::bigint,
  array(select value::uuid from jsonb_array_elements_text($4::text::jsonb))) as posted`

/**
 * Posts the buyer's message `text` when the order's shop has no message rule
 * (the message); otherwise posts nothing and names the shop and its rules'
 * version. Undefined when there is no such order.
 */
export async function postUnlessRules (
  db: Db, orderId: string, text: string
): Promise<{ message: Message } | { rulesShopId: string, rulesVersion: number } | undefined> {
  const probe = preparedOnce(db, 'post_buyer_message', () => rawQuery<ProbeRow>(db, postUnlessRulesSql))
  const [row] = await probe([orderId, 'buyer', text])
  if (!row) return undefined
  if (row.rulesShopId === null) {
    const { eventShopId, rulesShopId: _shop, rulesVersion: _version, ...message } = row
    notifyEvent(db, { eventShopId })
    return { message }
  }
  return { rulesShopId: row.rulesShopId, rulesVersion: Number(row.rulesVersion) }
}

/** The shop's enabled keyword rules in the order they answer, and its rules' version. */
export async function keywordRulesOf (
  db: Db, shopId: string
): Promise<{ version: number | undefined, rules: Array<{ id: string, keywords: string[] }> }> {
  const rows = await run<{ version: string | number, id: string | null, keywords: string[] | null }>(db, `
    select s.chat_rules_version as version, r.id, to_jsonb(r.keywords) as keywords
    from shops s left join chat_rules r on r.shop_id = s.id and r.enabled and r.trigger = 'message.keyword'
    where s.id = $1 order by r.priority, r.created_at, r.id`, [shopId])
  return {
    version: rows[0] === undefined ? undefined : Number(rows[0].version),
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
