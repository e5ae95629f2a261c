// The Auto-replies page (docs/portal.md, docs/chat-rules.md): the shop's chat
// rules with their trigger in words, whether enabled, how often they fired; add
// and edit with the placeholders listed beside the text and a preview against one
// of the shop's recent orders; enable, disable, delete after a confirmation. Every
// change goes through the /v1 calls' own service (services/chat-rules/service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { recentOrders } from '../../services/chat-rules/service.js'
import type { ChatRule } from '../../services/chat-rules/service.js'
import { claimPlaceholders, FIELD_PREFIX, orderPlaceholders } from '../../domain/chat-rule-template.js'
import { chatRuleTriggers } from '../../domain/chat-rules.js'
import { ChatRuleBody, ChatRulePreviewBody } from '../../schemas/chat-rules.js'
import {
  createShopChatRule, deleteShopChatRule, getShopChatRule, listShopChatRules, previewShopChatRule,
  replaceShopChatRule
} from '../../services/chat-rules/service.js'
import { recordPortalAction } from './activity.js'
import { attempt, formOf, list, text, validated, type Form } from './forms.js'
import { translator } from './i18n/index.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }

const ruleFields: FormFields = {
  name: { id: 'name', label: 'rules.name' },
  trigger: { id: 'trigger', label: 'rules.trigger' },
  priority: { id: 'priority', label: 'rules.priority' },
  keywords: { id: 'keywords', label: 'rules.keywords' },
  cooldownSeconds: { id: 'cooldownSeconds', label: 'rules.cooldown' },
  afterMinutes: { id: 'afterMinutes', label: 'rules.afterMinutes' },
  callSeller: { id: 'callSeller', label: 'rules.callSeller' },
  text: { id: 'text', label: 'rules.text' },
  productIds: { id: 'name', label: 'rules.name' },
  orderId: { id: 'orderId', label: 'rules.previewOrder' }
}

/** A number field as the API takes it: the number when it is one, else the text (the schema names the field). */
const numberOf = (value: string) => (/^-?\d+$/.test(value.trim()) ? Number(value) : value.trim())

/** The form as the rule's body: every field, so a save is the full replacement the API does. */
function bodyOf (form: Form) {
  const afterMinutes = text(form, 'afterMinutes').trim()
  const cooldown = text(form, 'cooldownSeconds').trim()
  return {
    name: text(form, 'name'),
    enabled: text(form, 'enabled') === 'true',
    trigger: text(form, 'trigger'),
    priority: numberOf(text(form, 'priority') || '100'),
    productIds: list(form, 'productIds'),
    keywords: text(form, 'keywords').split(/\r?\n/).filter((line) => line.trim() !== ''),
    cooldownSeconds: cooldown === '' ? 0 : numberOf(cooldown),
    afterMinutes: afterMinutes === '' ? null : numberOf(afterMinutes),
    callSeller: text(form, 'callSeller') === 'true',
    text: text(form, 'text')
  }
}

/** What the form shows: a rule's values, or the values posted. */
const valuesOf = (rule: ChatRule | ReturnType<typeof bodyOf>) => ({
  ...rule,
  keywords: rule.keywords.join('\n'),
  afterMinutes: rule.afterMinutes ?? '',
  orderId: ''
})

const defaults = valuesOf({
  name: '',
  enabled: true,
  trigger: 'order.delivered',
  priority: 100,
  productIds: [],
  keywords: [],
  cooldownSeconds: 0,
  afterMinutes: null,
  callSeller: false,
  text: ''
})

export default async function chatRulesPage (fastify: FastifyInstance) {
  const placeholders = { order: orderPlaceholders, claim: claimPlaceholders, field: `${FIELD_PREFIX}…` }
  const shared = { section: 'chat-rules' as const, triggers: chatRuleTriggers, placeholders }

  async function listPage (request: FastifyRequest, reply: FastifyReply, data: Partial<PageData> = {}) {
    const rules = await listShopChatRules(fastify, request.portalSession!.shopId)
    return reply.portalPage('chat-rules', {
      ...shared, title: 'rules.title', canonical: '/portal/chat-rules', rules, ...data
    })
  }

  async function formPage (
    request: FastifyRequest, reply: FastifyReply, rule: ChatRule | null, data: Partial<PageData>, status = 200
  ) {
    const orders = await recentOrders(fastify.db, request.portalSession!.shopId)
    return reply.portalPage('chat-rule-form', {
      ...shared,
      title: rule ? 'rules.editTitle' : 'rules.newTitle',
      canonical: rule ? `/portal/chat-rules/${rule.id}` : '/portal/chat-rules/new',
      action: rule ? `/portal/chat-rules/${rule.id}` : '/portal/chat-rules',
      rule,
      orders,
      values: rule ? valuesOf(rule) : defaults,
      ...data
    }, status)
  }

  /** A posted form: a preview (shown on the form again), or the save done by `save`. */
  async function submitted (
    request: FastifyRequest, reply: FastifyReply, rule: ChatRule | null,
    save: (body: ChatRuleBody) => Promise<ChatRule>
  ) {
    const session = request.portalSession!
    const form = formOf(request.body)
    const body = bodyOf(form)
    const values = { ...valuesOf(body), orderId: text(form, 'orderId') }
    if (text(form, 'intent') === 'preview') {
      const previewBody = { text: body.text, trigger: body.trigger, orderId: values.orderId }
      const preview = await attempt(() => previewShopChatRule(
        fastify, session.shopId, validated(ChatRulePreviewBody, previewBody)
      ))
      if (!preview.ok) {
        const errors = formErrors(preview.error, session.locale, ruleFields, 'orderId')
        return formPage(request, reply, rule, { values, errors }, 400)
      }
      return formPage(request, reply, rule, { values, preview: preview.value })
    }
    const saved = await attempt(() => save(validated(ChatRuleBody, body)))
    if (!saved.ok) {
      if (saved.error.code === 'NOT_FOUND') throw saved.error
      const errors = formErrors(saved.error, session.locale, ruleFields, 'name')
      return formPage(request, reply, rule, { values, errors }, 400)
    }
    const action = rule ? 'chatRule.updated' : 'chatRule.created'
    await recordPortalAction(fastify, request, action, { name: saved.value.name })
    const notice = translator(session.locale)('rules.saved', { name: saved.value.name })
    return listPage(request, reply, { notice })
  }

  fastify.get('/', async function chatRules (request, reply) {
    return listPage(request, reply)
  })

  fastify.get('/new', async function newRule (request, reply) {
    return formPage(request, reply, null, {})
  })

  fastify.post('/', async function createRule (request, reply) {
    return submitted(request, reply, null, (body) => createShopChatRule(fastify, request.portalSession!.shopId, body))
  })

  fastify.get<{ Params: Params }>('/:id', async function editRule (request, reply) {
    const rule = await getShopChatRule(fastify, request.portalSession!.shopId, request.params.id)
    return formPage(request, reply, rule, {})
  })

  fastify.post<{ Params: Params }>('/:id', async function saveRule (request, reply) {
    const { shopId } = request.portalSession!
    const rule = await getShopChatRule(fastify, shopId, request.params.id)
    return submitted(request, reply, rule, (body) => replaceShopChatRule(fastify, shopId, rule.id, body))
  })

  fastify.post<{ Params: Params }>('/:id/enabled', async function switchRule (request, reply) {
    const session = request.portalSession!
    const rule = await getShopChatRule(fastify, session.shopId, request.params.id)
    const enabled = text(formOf(request.body), 'enabled') === 'true'
    const { id, firedCount, lastFiredAt, createdAt, updatedAt, ...body } = rule
    const saved = await replaceShopChatRule(fastify, session.shopId, id, { ...body, enabled })
    await recordPortalAction(fastify, request, enabled ? 'chatRule.enabled' : 'chatRule.disabled', { name: saved.name })
    const t = translator(session.locale)
    const notice = t(enabled ? 'rules.enabledNotice' : 'rules.disabledNotice', { name: saved.name })
    return listPage(request, reply, { notice })
  })

  fastify.get<{ Params: Params }>('/:id/delete', async function confirmDelete (request, reply) {
    const rule = await getShopChatRule(fastify, request.portalSession!.shopId, request.params.id)
    return reply.portalPage('confirm', {
      ...shared,
      title: 'rules.deleteTitle',
      titleParams: { name: rule.name },
      text: 'rules.deleteText',
      action: `/portal/chat-rules/${rule.id}/delete`,
      cancel: '/portal/chat-rules'
    })
  })

  fastify.post<{ Params: Params }>('/:id/delete', async function deleteRule (request, reply) {
    const session = request.portalSession!
    const rule = await deleteShopChatRule(fastify, session.shopId, request.params.id)
    await recordPortalAction(fastify, request, 'chatRule.deleted', { name: rule.name })
    return listPage(request, reply, { notice: translator(session.locale)('rules.deleted', { name: rule.name }) })
  })
}
