// The Orders pages (docs/portal.md): the shop's orders visible through /v1,
// newest first, filtered and paged by a cursor (db/portal/orders.ts); an order's
// page with its fields, its delivered codes masked (shown on a POST, for that
// answer only, recorded in Activity without them), its events, claims, delivery
// request and chat. Reply, take, deliver and cancel call the very db functions
// the /v1 routes call (routes/v1/orders, routes/v1/messages): no write path of its own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { listChatRules } from '../../services/chat-rules/service.js'
import { findDeliveryRequest } from '../../services/delivery-endpoint/service.js'
import * as orderService from '../../services/orders/service.js'
import { listOrderClaims, listOrderEvents } from '../../services/portal/service.js'
import type { ApiError } from '../../domain/errors.js'
import { isUuid } from '../../domain/ids.js'
import { previewOf } from '../../domain/stock-cipher.js'
import { MessageBody } from '../../schemas/messages.js'
import { CancelBody, DeliverBody } from '../../schemas/orders.js'
import { recordPortalAction } from './activity.js'
import { attempt, formOf, text, validated } from './forms.js'
import { moneyFormatter, translator } from './i18n/index.js'
import { orderListPage } from './order-list.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }
const MESSAGES_SHOWN = 500
const replyFields: FormFields = { text: { id: 'reply', label: 'order.reply' } }
const deliverFields: FormFields = { values: { id: 'values', label: 'order.deliverValues' } }
const cancelFields: FormFields = { reason: { id: 'reason', label: 'order.cancelReason' } }

/** A delivered code as a stock preview shows it: its first 4 characters (none for a short one). */
export const masked = (value: string) => `${previewOf(value)}…`

/** The order's first 8 characters, as the pages and Activity name it. */
const shortId = (id: string) => id.slice(0, 8)

export default async function ordersPages (fastify: FastifyInstance) {
  const { db } = fastify

  async function orderPage (
    request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, data: Partial<PageData> = {}, status = 200
  ) {
    const { shopId } = request.portalSession!
    const id = request.params.id
    const order = await orderService.getShopOrder(fastify, shopId, id)
    const [events, claims, delivery, messages, meanings, rules] = await Promise.all([
      listOrderEvents(db, shopId, id),
      listOrderClaims(db, shopId, id),
      findDeliveryRequest(db, shopId, id),
      orderService.listMessages(db, shopId, id, undefined, MESSAGES_SHOWN),
      orderService.systemMessageMeanings(db, order.id),
      listChatRules(db, shopId)
    ])
    return reply.portalPage('order', {
      section: 'orders',
      title: 'order.title',
      titleParams: { order: shortId(order.id) },
      canonical: `/portal/orders/${order.id}`,
      order,
      values: data.revealed === true ? order.deliveredValues : order.deliveredValues.map(masked),
      events,
      claims,
      delivery,
      messages: messages ?? [],
      meanings,
      ruleNames: Object.fromEntries(rules.map((rule) => [rule.id, rule.name])),
      ...data
    }, status)
  }

  /** The order's page again after a refusal: the API's words at the top (and at `field`), its status. */
  function refused (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, error: ApiError,
    fields: FormFields = {}, field?: string, values: Record<string, string> = {}) {
    if (error.statusCode === 404) throw error
    const errors = formErrors(error, request.portalSession!.locale, fields, field)
    return orderPage(request, reply, { errors, form: values }, error.statusCode)
  }

  const notice = (request: FastifyRequest, key: Parameters<ReturnType<typeof translator>>[0],
    params?: Record<string, string | number>) => translator(request.portalSession!.locale)(key, params)

  fastify.get('/', async function ordersList (request, reply) {
    return orderListPage(fastify, request, reply)
  })

  fastify.get<{ Params: Params }>('/:id', async function orderView (request, reply) {
    if (!isUuid(request.params.id)) return reply.callNotFound()
    return orderPage(request, reply)
  })

  fastify.post<{ Params: Params }>('/:id/reveal', async function revealCodes (request, reply) {
    if (!isUuid(request.params.id)) return reply.callNotFound()
    await orderService.getShopOrder(fastify, request.portalSession!.shopId, request.params.id)
    await recordPortalAction(fastify, request, 'order.revealed', { order: shortId(request.params.id) })
    reply.header('cache-control', 'no-store')
    return orderPage(request, reply, { revealed: true })
  })

  fastify.post<{ Params: Params }>('/:id/messages', async function replyInChat (request, reply) {
    const { shopId } = request.portalSession!
    const message = text(formOf(request.body), 'text')
    const posted = await attempt(() =>
      orderService.postSellerMessage(fastify, shopId, request.params.id,
        validated(MessageBody, { text: message }).text))
    if (!posted.ok) return refused(request, reply, posted.error, replyFields, 'text', { text: message })
    await recordPortalAction(fastify, request, 'order.replied', { order: shortId(request.params.id) })
    return orderPage(request, reply, { notice: notice(request, 'order.sent') })
  })

  fastify.post<{ Params: Params }>('/:id/take', async function take (request, reply) {
    const taken = await attempt(() => orderService.takeOrder(fastify, request.portalSession!.shopId, request.params.id))
    if (!taken.ok) return refused(request, reply, taken.error)
    await recordPortalAction(fastify, request, 'order.taken', { order: shortId(request.params.id) })
    return orderPage(request, reply, { notice: notice(request, 'order.takenNotice') })
  })

  fastify.post<{ Params: Params }>('/:id/deliver', async function deliver (request, reply) {
    const lines = text(formOf(request.body), 'values').split(/\r?\n/).map((line) => line.trim()).filter(Boolean)
    const delivered = await attempt(() => orderService.deliverOrder(fastify, request.portalSession!.shopId,
      request.params.id, validated(DeliverBody, { values: lines })))
    if (!delivered.ok) {
      return refused(request, reply, delivered.error, deliverFields, 'values', { values: lines.join('\n') })
    }
    await recordPortalAction(fastify, request, 'order.delivered', { order: shortId(request.params.id) })
    return orderPage(request, reply, { notice: notice(request, 'order.deliveredNotice') })
  })

  fastify.get<{ Params: Params }>('/:id/cancel', async function confirmCancel (request, reply) {
    if (!isUuid(request.params.id)) return reply.callNotFound()
    const order = await orderService.getShopOrder(fastify, request.portalSession!.shopId, request.params.id)
    return reply.portalPage('order-cancel', {
      section: 'orders', title: 'order.cancelTitle', titleParams: { order: shortId(order.id) }, order, reason: ''
    })
  })

  fastify.post<{ Params: Params }>('/:id/cancel', async function cancel (request, reply) {
    const reason = text(formOf(request.body), 'reason')
    const cancelled = await attempt(() => orderService.cancelOrder(fastify, request.portalSession!.shopId,
      request.params.id, validated(CancelBody, reason.trim() === '' ? {} : { reason })))
    if (!cancelled.ok) return refused(request, reply, cancelled.error, cancelFields, 'reason', { reason })
    await recordPortalAction(fastify, request, 'order.cancelled', { order: shortId(request.params.id) })
    const amount = moneyFormatter(request.portalSession!.locale)(cancelled.value.amount)
    return orderPage(request, reply, { notice: notice(request, 'order.cancelledNotice', { amount }) })
  })
}
