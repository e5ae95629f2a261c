// A buyer's message and the chat rules' answers to it (docs/chat-rules.md):
// the `message.first` rules and at most one `message.keyword` answer, with the
// buyer's post in one statement. In a chat whose shop has no such rule (and for
// an order without automation) the post is the one statement it always was; that
// statement tells when the shop has rules, and only then is the post made with
// the answer (chat_rules_buyer_post). Keywords are matched here (Unicode-aware
// folding and word boundaries, domain/chat-rule-keywords.ts) with each shop's
// matchers compiled once per version of its rules. A message no keyword matched,
// in a chat that greets no more (or a shop that never greets), is posted by one
// statement as in a shop without rules, which declines when a greeting is due
// after all; the others go to the post with the answer. Both refuse a matching
// against an older version of the rules (then the message is matched again).
// Which matched rule answers is decided in the database under the order's lock.
import type { FastifyInstance } from 'fastify'
import { compileKeywordRules } from '../../domain/chat-rule-keywords.js'
import { ApiError, notFound } from '../../domain/errors.js'
import { messageText } from '../../domain/message-rules.js'
import type { Db } from '../../db/core/client.js'
import {
  keywordRulesOf, postAndAnswer, postUnlessAnswered, postUnlessRules
} from '../../db/chat-rules/buyer-messages.js'
import type { Message } from '../../db/orders/messages.js'

interface Matchers { version: number, greets: boolean, match: (message: string) => string[] }
/** `spoken`: orders whose chat has a buyer's message (posted here), so no greeting is due in it. */
interface Cache { matchers: Map<string, Matchers>, shopOfOrder: Map<string, string>, spoken: Set<string> }
const caches = new WeakMap<Db, Cache>()
const MAX_CACHED_SHOPS = 10_000
const MAX_CACHED_ORDERS = 100_000
/** Matchings against a version of the shop's rules that the post finds changed, before giving up. */
const MAX_MATCH_ATTEMPTS = 5

function cacheOf (db: Db): Cache {
  let cache = caches.get(db)
  if (!cache) caches.set(db, cache = { matchers: new Map(), shopOfOrder: new Map(), spoken: new Set() })
  return cache
}

/** The shop's keyword rules compiled, from the cache when its version is `version` (or any, when undefined). */
async function matchersOf (db: Db, shopId: string, version: number | undefined): Promise<Matchers> {
  const { matchers } = cacheOf(db)
  const cached = matchers.get(shopId)
  if (cached !== undefined && (version === undefined || cached.version === version)) return cached
  const read = await keywordRulesOf(db, shopId)
  const compiled = {
    version: read.version ?? version ?? 0, greets: read.greets, match: compileKeywordRules(read.rules)
  }
  if (matchers.size >= MAX_CACHED_SHOPS) matchers.clear()
  matchers.set(shopId, compiled)
  return compiled
}

function rememberShop (db: Db, orderId: string, shopId: string): void {
  const { shopOfOrder } = cacheOf(db)
  if (shopOfOrder.size >= MAX_CACHED_ORDERS) shopOfOrder.clear()
  shopOfOrder.set(orderId, shopId)
}

function rememberSpoken (db: Db, orderId: string): void {
  const { spoken } = cacheOf(db)
  if (spoken.size >= MAX_CACHED_ORDERS) spoken.clear()
  spoken.add(orderId)
}

/** The post of a message no keyword matched, when no greeting can be due in its chat: undefined when one might be. */
async function postIfUnanswered (db: Db, orderId: string, text: string, matchers: Matchers) {
  if (matchers.greets && !cacheOf(db).spoken.has(orderId)) return undefined
  const posted = await postUnlessAnswered(db, orderId, text, matchers.version)
  if (!posted) throw notFound('Order')
  return posted
}

/** Posts the buyer's message (operator side) and the rules' answers; 404 when there is no such order. */
export async function postBuyerMessage (
  app: Pick<FastifyInstance, 'db'>, orderId: string, rawText: string
): Promise<Message> {
  const { db } = app
  const text = messageText(rawText)
  // An order's shop never changes: once known to have rules, the probe is skipped.
  let shopId = cacheOf(db).shopOfOrder.get(orderId)
  let version: number | undefined
  if (shopId === undefined) {
    const probed = await postUnlessRules(db, orderId, text)
    if (!probed) throw notFound('Order')
    if ('message' in probed) return probed.message
    shopId = probed.rulesShopId
    version = probed.rulesVersion
    rememberShop(db, orderId, shopId)
  }
  for (let attempt = 1; attempt <= MAX_MATCH_ATTEMPTS; attempt++) {
    const matchers = await matchersOf(db, shopId, version)
    const candidates = matchers.match(text)
    const unanswered = candidates.length === 0 ? await postIfUnanswered(db, orderId, text, matchers) : undefined
    if (unanswered !== undefined && 'message' in unanswered) return unanswered.message
    if (unanswered !== undefined && unanswered.rulesVersion !== matchers.version) {
      version = unanswered.rulesVersion
      continue
    }
    // A keyword matched, or a greeting may be due: the post with the answer decides.
    const posted = await postAndAnswer(db, orderId, text, matchers.version, candidates)
    if (!posted) throw notFound('Order')
    if ('message' in posted) {
      rememberSpoken(db, orderId)
      return posted.message
    }
    // The rules changed since they were compiled: compiled again, at least at the version seen.
    version = posted.rulesVersion
  }
  // Edited faster than a message can be matched: nothing was posted, the buyer's client sends it again.
  throw new ApiError('SERVICE_UNAVAILABLE',
    'The shop\'s chat rules changed while the message was matched; retry shortly.')
}
