// A buyer's message and the chat rules' answers to it (docs/chat-rules.md):
// the `message.first` rules and at most one `message.keyword` answer, in the
// buyer message's own transaction. In a chat whose shop has no such rule
// (and for an order without automation) the post is the one statement it always
// was; the statement itself tells when the shop has rules, and only then is the
// post made again as a transaction that also answers. Keywords are matched here
// (Unicode-aware folding and word boundaries, domain/chat-rule-keywords.ts) with
// each shop's matchers compiled once per version of its rules; which matched rule
// answers (priority, cooldown, the cap) is decided in the database under the
// order's lock (chat_rules_answer, db/chat-rules/triggers.sql).
import { compileKeywordRules } from '../../domain/chat-rule-keywords.js'
import { notFound } from '../../domain/errors.js'
import { messageText } from '../../domain/message-rules.js'
import type { Db } from '../core/client.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { commitWith, pipelinedTransaction } from '../core/pipelined-transaction.js'
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

interface Matchers { version: number, match: (message: string) => string[] }
const matchersByDb = new WeakMap<Db, Map<string, Matchers>>()
const MAX_CACHED_SHOPS = 10_000

/** The shop's keyword rules compiled, from the cache when its version is current. */
async function matchersOf (db: Db, shopId: string, version: number): Promise<Matchers> {
  let cache = matchersByDb.get(db)
  if (!cache) matchersByDb.set(db, cache = new Map())
  const cached = cache.get(shopId)
  if (cached?.version === version) return cached
  const rows = await run<{ version: string | number, id: string | null, keywords: string[] | null }>(db, `
    select s.chat_rules_version as version, r.id, to_jsonb(r.keywords) as keywords
    from shops s left join chat_rules r on r.shop_id = s.id and r.enabled and r.trigger = 'message.keyword'
    where s.id = $1 order by r.priority, r.created_at, r.id`, [shopId])
  const rules = rows.filter((row) => row.id !== null).map((row) => ({ id: row.id!, keywords: row.keywords! }))
  const matchers = { version: Number(rows[0]?.version ?? version), match: compileKeywordRules(rules) }
  if (cache.size >= MAX_CACHED_SHOPS) cache.clear()
  cache.set(shopId, matchers)
  return matchers
}

/** Posts the buyer's message (operator side) and the rules' answers; 404 when there is no such order. */
export async function postBuyerMessage (db: Db, orderId: string, rawText: string): Promise<Message> {
  const text = messageText(rawText)
  const probe = preparedOnce(db, 'post_buyer_message', () => rawQuery<ProbeRow>(db, postUnlessRulesSql))
  const [row] = await probe([orderId, 'buyer', text])
  if (!row) throw notFound('Order')
  if (row.rulesShopId === null) {
    const { eventShopId, rulesShopId, rulesVersion, ...message } = row
    notifyEvent(db, { eventShopId })
    return message
  }
  const { match } = await matchersOf(db, row.rulesShopId, Number(row.rulesVersion))
  const candidates = JSON.stringify(match(text))
  return pipelinedTransaction(db, async (tx) => {
    const [[posted]] = await Promise.all([
      runPrepared<Message & EventOutcome>(tx, postInTransactionSql, [orderId, 'buyer', text]),
      commitWith(tx, runPrepared(tx, answerSql, [orderId, candidates]))
    ])
    const { eventShopId, ...message } = posted
    if (eventShopId) notifyAfterCommit(tx, EVENTS_CHANNEL, eventShopId)
    return message
  })
}
