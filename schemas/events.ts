// Events (CONTRACT section 10): the payload of every kind, named once and shared
// by the events feed and the webhooks.
import { Type, type Static } from '@sinclair/typebox'
import { eventTypes } from '../domain/event-types.js'
import { Id, StringEnum, Timestamp } from './common.js'
import { MessageSchema } from './messages.js'
import { OrderSchema } from './orders.js'

export const EventTypeSchema = StringEnum(eventTypes, {
  description: '`order.paid`, `order.taken`, `order.delivered`, `order.cancelled`, `order.completed`: `data.order` is the order as `GET /v1/orders/{id}` returned it right after the change. `message.created`: a chat message from the buyer, the seller or the system.'
})

export const OrderEventData = Type.Object({
  order: OrderSchema
}, { title: 'OrderEventData', description: 'The order right after the change.' })
export type OrderEventData = Static<typeof OrderEventData>

export const MessageEventData = Type.Object({
  orderId: Id,
  message: MessageSchema
}, { title: 'MessageEventData', description: 'The new chat message and its order.' })
export type MessageEventData = Static<typeof MessageEventData>

export const EventSchema = Type.Object({
  id: Type.String({ description: 'Unique and never changes; also the `webhook-id` of its webhook deliveries.' }),
  type: EventTypeSchema,
  createdAt: Timestamp,
  data: Type.Union([OrderEventData, MessageEventData])
}, { title: 'Event' })
export type Event = Static<typeof EventSchema>
