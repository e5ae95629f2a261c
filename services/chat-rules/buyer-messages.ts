// A buyer's message and the chat rules' answers to it (docs/chat-rules.md):
// the `message.first` rules and at most one `message.keyword` answer, in the
// buyer message's own transaction. In a chat whose shop has no such rule (and
// for an order without automation) the post is the one statement it always was;
// the statement itself tells when the shop has rules, and only then is the post
// made again as a transaction that also answers. Keywords are matched here
// (Unicode-aware folding and word boundaries, domain/chat-rule-keywords.ts) with
// each shop's matchers compiled once per version of its rules; which matched
// rule answers is decided in the database under the order's lock.
import type { FastifyInstance } from 'fastify'
import { compileKeywordRules } from '../../domain/chat-rule-keywords.js'
import { notFound } from '../../domain/errors.js'
import { messageText } from '../../domain/message-rules.js'
import type { Db } from '../../db/core/client.js'
import { pipelinedTransaction } from '../../db/core/pipelined-transaction.js'
import { keywordRulesOf, postAndAnswer, postUnlessRules } from '../../db/chat-rules/buyer-messages.js'
import type { Message } from '../../db/orders/messages.js'

interface Matchers { version: number, match: (message: string) => string[] }
const matchersByDb = new WeakMap<Db, Map<string, Matchers>>()
const MAX_CACHED_SHOPS = 10_000

/** The shop's keyword rules compiled, from the cache when its version is current. */
async function matchersOf (db: Db, shopId: string, version: number): Promise<Matchers> {
  let cache = matchersByDb.get(db)
  if (!cache) matchersByDb.set(db, cache = new Map())
  const cached = cache.get(shopId)
  if (cached?.version === version) return cached
  const read = await keywordRulesOf(db, shopId)
  const matchers = { version: read.version ?? version, match: compileKeywordRules(read.rules) }
  if (cache.size >= MAX_CACHED_SHOPS) cache.clear()
  cache.set(shopId, matchers)
  return matchers
}

/** Posts the buyer's message (operator side) and the rules' answers; 404 when there is no such order. */
export async function postBuyerMessage (
  app: Pick<FastifyInstance, 'db'>, orderId: string, rawText: string
): Promise<Message> {
  const { db } = app
  const text = messageText(rawText)
  const probed = await postUnlessRules(db, orderId, text)
  if (!probed) throw notFound('Order')
  if ('message' in probed) return probed.message
  const { match } = await matchersOf(db, probed.rulesShopId, probed.rulesVersion)
  const candidates = match(text)
  return pipelinedTransaction(db, (tx) => postAndAnswer(tx, orderId, text, candidates))
}
