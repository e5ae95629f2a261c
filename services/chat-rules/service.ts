// What each /v1/chat-rules call does once its input passed the schema: the rule
// checked against its trigger and its text parsed (domain/chat-rules.ts), then
// stored (db/chat-rules/). The seller API's routes and the portal's Auto-replies
// page (routes/portal/chat-rules.ts) both call these: one set of rules and errors.
import type { FastifyInstance } from 'fastify'
import { previewChatRule } from '../../db/chat-rules/preview.js'
import {
  createChatRule, deleteChatRule, getChatRule, listChatRules, replaceChatRule, ruleNotFound
} from '../../db/chat-rules/rules.js'
import { isUuid } from '../../domain/ids.js'
import { chatRuleFields, ruleTemplate } from '../../domain/chat-rules.js'
import type { ChatRuleBody, ChatRulePreviewBody } from '../../schemas/chat-rules.js'

type ChatRuleApp = Pick<FastifyInstance, 'db'>

export const listShopChatRules = (app: ChatRuleApp, shopId: string) => listChatRules(app.db, shopId)

export const getShopChatRule = (app: ChatRuleApp, shopId: string, ruleId: string) =>
  getChatRule(app.db, shopId, ruleId)

/** A new rule of the shop; 409 CHAT_RULE_LIMIT at 100, 404 for a product not the shop's. */
export function createShopChatRule (app: ChatRuleApp, shopId: string, body: ChatRuleBody) {
  const fields = chatRuleFields(body)
  return app.db.transaction((tx) => createChatRule(tx, shopId, fields))
}

export async function replaceShopChatRule (app: ChatRuleApp, shopId: string, ruleId: string, body: ChatRuleBody) {
  if (!isUuid(ruleId)) throw ruleNotFound()
  const fields = chatRuleFields(body)
  return app.db.transaction((tx) => replaceChatRule(tx, shopId, ruleId, fields))
}

export async function deleteShopChatRule (app: ChatRuleApp, shopId: string, ruleId: string) {
  if (!isUuid(ruleId)) throw ruleNotFound()
  return app.db.transaction((tx) => deleteChatRule(tx, shopId, ruleId))
}

/** The rule's text as the buyer would read it for one of the shop's orders (or a sample). */
export const previewShopChatRule = (app: ChatRuleApp, shopId: string, body: ChatRulePreviewBody) =>
  previewChatRule(app.db, shopId, body.orderId, ruleTemplate(body.text, body.trigger))

export { recentOrders } from '../../db/chat-rules/preview.js'
export { listChatRules } from '../../db/chat-rules/rules.js'
export { ruleNotFound, type ChatRule } from '../../db/chat-rules/rules.js'
