// Events (docs/events.md): the payload of every kind, named once and shared
// by the events feed and the webhooks, and the feed's query and page. The named
// schemas (`eventSchemas`) are registered once for the whole app (plugins/openapi.ts),
// so they appear as components of the OpenAPI document and routes refer to them.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { eventTypes, type EventType } from '../domain/event-types.js'
import { Id, Nullable, StringEnum, Timestamp } from './common.js'
import { ClaimSchema } from './claims.js'
import { MessageSchema } from './messages.js'
import { OrderSchema } from './orders.js'

export const EventTypeSchema = StringEnum(eventTypes, {
  description: '`order.paid`, `order.taken`, `order.delivered`, `order.cancelled`, `order.completed`: ' +
    '`data.order` is the order as `GET /v1/orders/{id}` returned it right after the change. ' +
    '`message.created`: a chat message from the buyer, the seller or the system. `stock.low`, `stock.empty`: ' +
    'a product\'s stock (or one of its variants) fell to its low-stock threshold, or to 0. ' +
    '`order.delivery_failed`: the shop\'s delivery endpoint could not supply an order, which stays `paid`. ' +
    '`claim.opened`, `claim.escalated`, `claim.resolved`: `data.claim` is the claim right after the change. ' +
    '`order.updated`: a claim\'s replacement changed the order\'s delivered values. `chat.seller_called`: a ' +
    'chat rule with `callSeller` answered a buyer\'s message.'
})

export const OrderEventData = Type.Object({
  order: OrderSchema
}, {
  $id: 'OrderEventData',
  title: 'OrderEventData',
  description: 'The order right after the change, exactly as `GET /v1/orders/{id}` returned it then.'
})
export type OrderEventData = Static<typeof OrderEventData>

export const MessageEventData = Type.Object({
  orderId: Id,
  message: MessageSchema
}, { $id: 'MessageEventData', title: 'MessageEventData', description: 'The new chat message and its order.' })
export type MessageEventData = Static<typeof MessageEventData>

export const StockLowEventData = Type.Object({
  productId: Id,
  optionId: Nullable(Id, { description: 'The variant, when the stock has an `optionFieldId`; else null.' }),
  available: Type.Integer({ description: 'Items available after the delivery.' }),
  lowStockThreshold: Type.Integer()
}, {
  $id: 'StockLowEventData',
  title: 'StockLowEventData',
  description: 'A delivery took the available count ' +
  '(of the variant, or of the product) from above `lowStockThreshold` to at or below it.'
})

export const StockEmptyEventData = Type.Object({
  productId: Id,
  optionId: Nullable(Id, { description: 'The variant, when the stock has an `optionFieldId`; else null.' }),
  available: Type.Literal(0)
}, {
  $id: 'StockEmptyEventData',
  title: 'StockEmptyEventData',
  description: 'A delivery or a removal took the available count (of the variant, or of the product) to 0.'
})

export const OrderDeliveryFailedEventData = Type.Object({
  order: OrderSchema,
  reason: Type.String({ description: 'What was wrong with the last attempt, in words (never the values).' })
}, {
  $id: 'OrderDeliveryFailedEventData',
  title: 'OrderDeliveryFailedEventData',
  description: 'The order (still `paid`) and why its delivery request failed.'
})

export const ClaimEventData = Type.Object({
  claim: ClaimSchema
}, {
  $id: 'ClaimEventData',
  title: 'ClaimEventData',
  description: 'The claim right after the change, as `GET /v1/claims/{id}` returned it then.'
})

export const ChatSellerCalledEventData = Type.Object({
  orderId: Id,
  message: MessageSchema,
  ruleId: Id
}, {
  $id: 'ChatSellerCalledEventData',
  title: 'ChatSellerCalledEventData',
  description: 'The buyer\'s message a chat rule with `callSeller` answered, its order, and the rule.'
})

/** A reference to a named schema, typed as the schema it names. */
const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(schema.$id!))

function eventKind<K extends EventType, D extends TSchema> (type: K, name: string, data: D, description: string) {
  return Type.Object({
    id: Type.String({
      format: 'uuid',
      description: 'Unique and never changes; also the `webhook-id` of its webhook deliveries.'
    }),
    type: Type.Literal(type),
    createdAt: Timestamp,
    data: ref(data)
  }, { $id: name, title: name, description })
}

export const OrderPaidEvent = eventKind('order.paid', 'OrderPaidEvent', OrderEventData,
  'A buyer paid for an order (a new `paid` order).')
export const OrderTakenEvent = eventKind('order.taken', 'OrderTakenEvent', OrderEventData,
  'The order was taken into work: `paid` → `processing`.')
export const OrderDeliveredEvent = eventKind('order.delivered', 'OrderDeliveredEvent', OrderEventData,
  'The order was delivered: `processing` → `awaiting_confirmation`.')
export const OrderCancelledEvent = eventKind('order.cancelled', 'OrderCancelledEvent', OrderEventData,
  'The order was cancelled and the buyer refunded.')
export const OrderCompletedEvent = eventKind('order.completed', 'OrderCompletedEvent', OrderEventData,
  'The buyer confirmed receipt: `awaiting_confirmation` → `completed`, the shop is credited.')
export const MessageCreatedEvent = eventKind('message.created', 'MessageCreatedEvent', MessageEventData,
  'A message in the order chat, from the buyer, the seller or the system.')

export const StockLowEvent = eventKind('stock.low', 'StockLowEvent', StockLowEventData,
  'A product\'s stock (or a variant\'s) fell to its low-stock threshold.')
export const StockEmptyEvent = eventKind('stock.empty', 'StockEmptyEvent', StockEmptyEventData,
  'A product\'s stock (or a variant\'s) has no available item left.')

export const OrderDeliveryFailedEvent = eventKind('order.delivery_failed', 'OrderDeliveryFailedEvent',
  OrderDeliveryFailedEventData, 'The shop\'s delivery endpoint could not supply the order (after the last attempt, ' +
  'or at once on 409 / 422, or its endpoint was deleted): it stays `paid` for a bot or a person.')

export const ClaimOpenedEvent = eventKind('claim.opened', 'ClaimOpenedEvent', ClaimEventData,
  'A buyer reported delivered values of an order (the claim as opened).')
export const ClaimEscalatedEvent = eventKind('claim.escalated', 'ClaimEscalatedEvent', ClaimEventData,
  'The buyer escalated a rejected claim: it waits for the shop or the marketplace.')
export const ClaimResolvedEvent = eventKind('claim.resolved', 'ClaimResolvedEvent', ClaimEventData,
  'A claim was replaced, refunded or rejected (by the shop, automatically, or by the marketplace).')
export const OrderUpdatedEvent = eventKind('order.updated', 'OrderUpdatedEvent', OrderEventData,
  'The order\'s delivered values changed (a claim\'s replacement); its status did not.')
export const ChatSellerCalledEvent = eventKind('chat.seller_called', 'ChatSellerCalledEvent',
  ChatSellerCalledEventData, 'A chat rule with `callSeller` answered a buyer\'s message (right after its answer): ' +
  'a person may be wanted in that chat.')

export const eventKinds = [
  OrderPaidEvent, OrderTakenEvent, OrderDeliveredEvent, OrderCancelledEvent, OrderCompletedEvent, MessageCreatedEvent,
  StockLowEvent, StockEmptyEvent, OrderDeliveryFailedEvent,
  ClaimOpenedEvent, ClaimEscalatedEvent, ClaimResolvedEvent, OrderUpdatedEvent, ChatSellerCalledEvent
]

export const EventSchema = Type.Union(eventKinds.map(ref), {
  $id: 'Event',
  title: 'Event',
  description: 'One change in the shop: `{id, type, createdAt, data}`; `type` decides the shape of `data`.'
})
export type Event = Static<typeof EventSchema>

/** Every named event schema, for `fastify.addSchema`. */
export const eventSchemas: TSchema[] = [
  OrderEventData, MessageEventData, StockLowEventData, StockEmptyEventData, OrderDeliveryFailedEventData,
  ClaimEventData, ChatSellerCalledEventData, ...eventKinds, EventSchema
]

const kind = `(${eventTypes.map((t) => t.replace('.', '\\.')).join('|')})`

export const EventFeedQuery = Type.Object({
  after: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Where to start: the `nextCursor` of your previous call (an opaque string), or `latest` for ' +
      '"after the newest event so far". Absent: from the oldest retained event. A cursor that is not one of ' +
      'this shop\'s is 400; one older than the retention is 410 CURSOR_EXPIRED.'
  })),
  types: Type.Optional(Type.String({
    pattern: `^${kind}(,${kind})*$`,
    description: 'Comma-separated kinds to return (e.g. `order.paid,message.created`); absent: all. Events of ' +
      'other kinds are skipped and the cursor moves past them.'
  })),
  limit: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 50,
    description: 'At most this many events (1–100, default 50).'
  }),
  wait: Type.Integer({
    minimum: 0,
    maximum: 30,
    default: 0,
    description: 'Seconds to hold the request when ' +
    'nothing is available yet (0–30, default 0): it is answered as soon as an event of the shop commits, or ' +
    'with `[]` when the time is up.'
  })
})
export type EventFeedQuery = Static<typeof EventFeedQuery>

export const EventFeedPage = Type.Object({
  events: Type.Array(ref(EventSchema), { description: 'Oldest first, in commit order.' }),
  nextCursor: Type.String({
    description: 'Pass it as `after` in your next call. Never null: the position ' +
    'after the last event examined, or the position you asked for when nothing is new.'
  })
})
