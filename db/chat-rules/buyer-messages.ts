// The statements of a buyer's message and the chat rules' answers to it
// (docs/chat-rules.md; the transaction and the keyword matching are
// services/chat-rules/buyer-messages.ts): the post made at once when the order's
// shop has no message rule, the shop's keyword rules, and the post with the
// rules' answer (chat_rules_answer, db/chat-rules/triggers.sql, decides under
// the order's lock which matched rule answers: priority, cooldown, the cap).
import type { Db, Tx } from '../core/client.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { commitWith } from '../core/pipelined-transaction.js'
import { preparedOnce, rawQuery, run, runPrepared } from '../core/sql.js'
import { notifyEvent, type EventOutcome } from '../events/statements.js'
import { EVENTS_CHANNEL } from '../events/store.js'
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

const postInTransactionSql = postMessageSql(false)
const answerSql = `select chat_rules_answer($1::uuid,
  array(select value::uuid from jsonb_array_elements_text($2::text::jsonb))) as answered`

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
 * that matched), sent together as the transaction's last statements.
 */
export async function postAndAnswer (tx: Tx, orderId: string, text: string, candidates: string[]): Promise<Message> {
  const [[posted]] = await Promise.all([
    runPrepared<Message & EventOutcome>(tx, postInTransactionSql, [orderId, 'buyer', text]),
    commitWith(tx, runPrepared(tx, answerSql, [orderId, JSON.stringify(candidates)]))
  ])
  const { eventShopId, ...message } = posted
  if (eventShopId) notifyAfterCommit(tx, EVENTS_CHANNEL, eventShopId)
  return message
}
