// /v1/chat-rules (docs/chat-rules.md): the shop's chat rules — messages the
// service posts in its orders' chats by itself — and the preview of a rule's
// text for one order. Another shop's rule, like an unknown or malformed id, is
// 404 NOT_FOUND. The rules fire in the database (db/chat-rules/triggers.sql).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { MAX_RULES_PER_SHOP } from '../../../domain/chat-rules.js'
import { isUuid } from '../../../domain/ids.js'
import { ruleNotFound } from '../../../services/chat-rules/service.js'
import {
  ChatRuleBody, ChatRuleData, ChatRuleList, ChatRulePreview, ChatRulePreviewBody
} from '../../../schemas/chat-rules.js'
import { CommonErrors, Envelope, ErrorBody, IdParams, sellerSecurity } from '../../../schemas/common.js'
import * as chatRuleService from '../../../services/chat-rules/service.js'

const RuleEnvelope = Envelope(ChatRuleData)
const bodyNote = 'Checked against the trigger: `keywords`, `cooldownSeconds` and `callSeller` only for ' +
  '`message.keyword`, `afterMinutes` only (and required) for `order.unconfirmed`; an unknown placeholder, a ' +
  'claim placeholder on another trigger or a `{{` without `}}` is 400 naming it. Left-out properties take ' +
  'their defaults.'

const chatRulesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  // A path id that is not an id names nothing: NOT_FOUND, before schema validation would call it a validation error.
  fastify.addHook('preValidation', async function rejectMalformedIds (request) {
    const { id } = request.params as { id?: string }
    if (id !== undefined && !isUuid(id)) throw ruleNotFound()
  })

  fastify.get('/', {
    schema: {
      operationId: 'listChatRules',
      tags: ['chat-rules'],
      summary: 'List chat rules',
      description: `Every rule of the shop (at most ${MAX_RULES_PER_SHOP}, so not paged), by \`priority\` then ` +
        '`createdAt`.',
      security: sellerSecurity,
      response: { 200: Envelope(ChatRuleList), ...CommonErrors }
    }
  }, async function listShopChatRules (request) {
    const rules = await chatRuleService.listShopChatRules(fastify, request.apiKey!.shopId)
    return { success: true as const, data: { rules } }
  })

  fastify.post('/', {
    config: { idempotent: true },
    schema: {
      operationId: 'createChatRule',
      tags: ['chat-rules'],
      summary: 'Create a chat rule',
      description: 'The rule fires for changes that commit after it is created. ' + bodyNote +
        ` The shop's ${MAX_RULES_PER_SHOP + 1}st rule: 409 CHAT_RULE_LIMIT. Honours \`Idempotency-Key\`.`,
      security: sellerSecurity,
      body: ChatRuleBody,
      response: { 201: RuleEnvelope, ...CommonErrors, 409: Type.Ref(ErrorBody), 422: Type.Ref(ErrorBody) }
    }
  }, async function createShopChatRule (request, reply) {
    const rule = await chatRuleService.createShopChatRule(fastify, request.apiKey!.shopId, request.body)
    return reply.code(201).send({ success: true as const, data: { rule } })
  })

  fastify.post('/preview', {
    schema: {
      operationId: 'previewChatRule',
      tags: ['chat-rules'],
      summary: 'Preview a rule\'s text',
      description: 'The text rendered for one order the shop sees through /v1 (404 ORDER_NOT_FOUND otherwise), ' +
        'validated as a rule\'s text is; the claim placeholders come from the order\'s latest claim (409 ' +
        'ORDER_INVALID_STATUS when the text uses them and the order has none). Posts nothing.',
      security: sellerSecurity,
      body: ChatRulePreviewBody,
      response: { 200: Envelope(ChatRulePreview), ...CommonErrors, 409: Type.Ref(ErrorBody) }
    }
  }, async function previewShopChatRule (request) {
    const text = await chatRuleService.previewShopChatRule(fastify, request.apiKey!.shopId, request.body)
    return { success: true as const, data: { text } }
  })

  fastify.get('/:id', {
    schema: {
      operationId: 'getChatRule',
      tags: ['chat-rules'],
      summary: 'Get a chat rule',
      description: 'One rule of the shop; another shop\'s is 404 NOT_FOUND.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: RuleEnvelope, ...CommonErrors }
    }
  }, async function getShopChatRule (request) {
    const rule = await chatRuleService.getShopChatRule(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { rule } }
  })

  fastify.put('/:id', {
    schema: {
      operationId: 'replaceChatRule',
      tags: ['chat-rules'],
      summary: 'Replace a chat rule',
      description: 'A full replacement (`firedCount` and `lastFiredAt` kept): left-out properties go back to ' +
        'their defaults. Enabling a disabled rule makes it fire for what commits from then on. ' + bodyNote,
      security: sellerSecurity,
      params: IdParams,
      body: ChatRuleBody,
      response: { 200: RuleEnvelope, ...CommonErrors }
    }
  }, async function replaceShopChatRule (request) {
    const rule = await chatRuleService.replaceShopChatRule(
      fastify, request.apiKey!.shopId, request.params.id, request.body
    )
    return { success: true as const, data: { rule } }
  })

  fastify.delete('/:id', {
    schema: {
      operationId: 'deleteChatRule',
      tags: ['chat-rules'],
      summary: 'Delete a chat rule',
      description: 'Returns the rule as it was. The messages it posted stay, with their `ruleId`.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: RuleEnvelope, ...CommonErrors }
    }
  }, async function deleteShopChatRule (request) {
    const rule = await chatRuleService.deleteShopChatRule(fastify, request.apiKey!.shopId, request.params.id)
    return { success: true as const, data: { rule } }
  })
}

export default chatRulesRoutes
