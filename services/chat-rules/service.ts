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

export function chatRuleService (fastify: FastifyInstance) {
  return {
    list: (shopId: string) => listChatRules(fastify.db, shopId),
    get: (shopId: string, ruleId: string) => getChatRule(fastify.db, shopId, ruleId),
    create: (shopId: string, body: ChatRuleBody) => {
      const fields = chatRuleFields(body)
      return fastify.db.transaction((tx) => createChatRule(tx, shopId, fields))
    },
    replace: async (shopId: string, ruleId: string, body: ChatRuleBody) => {
      if (!isUuid(ruleId)) throw ruleNotFound()
      const fields = chatRuleFields(body)
      return fastify.db.transaction((tx) => replaceChatRule(tx, shopId, ruleId, fields))
    },
    delete: async (shopId: string, ruleId: string) => {
      if (!isUuid(ruleId)) throw ruleNotFound()
      return fastify.db.transaction((tx) => deleteChatRule(tx, shopId, ruleId))
    },
    preview: (shopId: string, body: ChatRulePreviewBody) =>
      previewChatRule(fastify.db, shopId, body.orderId, ruleTemplate(body.text, body.trigger))
  }
}

export { recentOrders } from '../../db/chat-rules/preview.js'
export { listChatRules } from '../../db/chat-rules/rules.js'
export { ruleNotFound, type ChatRule } from '../../db/chat-rules/rules.js'
