// Webhooks (docs/webhooks.md): endpoints and deliveries as the API takes and
// returns them, and the body of a delivery, whose `data` reuses the event
// payload schemas of the feed (schemas/events.ts).
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { DELIVERY_REQUEST_TYPE, eventTypes, WEBHOOK_TEST_EVENT, type EventType } from '../domain/event-types.js'
import { sendStatuses } from '../domain/webhook-sends.js'
import { MAX_WEBHOOK_URL_LENGTH } from '../domain/webhook-url.js'
import { Id, Nullable, NullableTimestamp, SecretString, StringEnum, Timestamp } from './common.js'
import {
  ChatSellerCalledEventData, ClaimEventData, EventTypeSchema, MessageEventData, OrderDeliveryFailedEventData,
  OrderEventData, StockEmptyEventData, StockLowEventData
} from './events.js'
import { OrderSchema } from './orders.js'

export const MAX_DESCRIPTION_LENGTH = 500

const UrlInput = Type.String({
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description: `Absolute \`https://\` URL, at most ${MAX_WEBHOOK_URL_LENGTH} characters, of a public host. An ` +
    'IP literal that is loopback, private, link-local, unique-local, multicast or unspecified is refused ' +
    'here; a name that resolves to such an address is refused at delivery time. Stored in normalised form.'
})
const EventTypesInput = Type.Array(EventTypeSchema, {
  maxItems: 50,
  description: 'The kinds to send. Absent or `[]`: every kind. Repeats are ignored.'
})
const DescriptionInput = Type.String({
  maxLength: MAX_DESCRIPTION_LENGTH,
  description: 'Up to ' +
  `${MAX_DESCRIPTION_LENGTH} characters, for you.`
})

export const EndpointCreateBody = Type.Object({
  url: UrlInput,
  eventTypes: Type.Optional(EventTypesInput),
  description: Type.Optional(DescriptionInput)
}, { 'x-component': 'WebhookEndpointInput' })
export type EndpointCreateBody = Static<typeof EndpointCreateBody>

export const EndpointPatchBody = Type.Object({
  url: Type.Optional(UrlInput),
  eventTypes: Type.Optional(EventTypesInput),
  description: Type.Optional(DescriptionInput),
  enabled: Type.Optional(Type.Boolean({
    description: '`false` stops deliveries (pending ones fail); `true` ' +
    'resumes with the events that happen from then on.'
  }))
}, { 'x-component': 'WebhookEndpointPatch', description: 'Only the properties sent change.' })
export type EndpointPatchBody = Static<typeof EndpointPatchBody>

export const EndpointSchema = Type.Object({
  id: Id,
  url: Type.String(),
  eventTypes: Type.Array(EventTypeSchema, { description: '`[]`: every kind.' }),
  description: Type.String(),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String(), { description: 'Why the endpoint is disabled; null while enabled.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { 'x-component': 'WebhookEndpoint', title: 'WebhookEndpoint' })

export const EndpointSecret = SecretString(
  'The signing secret, `whsec_` + base64 of 32 random bytes. Shown only now: keep it.')

export const WebhookSendSchema = Type.Object({
  id: Id,
  endpointId: Id,
  eventId: Id,
  eventType: StringEnum([...eventTypes, WEBHOOK_TEST_EVENT], { description: 'An event kind, or `webhook.test`.' }),
  status: StringEnum(sendStatuses, {
    description: '`pending` until an attempt succeeds (`succeeded`) or the last scheduled attempt fails (`failed`).'
  }),
  attempts: Type.Integer({ description: 'Attempts made so far.' }),
  lastAttemptAt: NullableTimestamp,
  nextAttemptAt: Nullable(Timestamp, { description: 'When the next attempt is due; null unless pending.' }),
  lastStatusCode: Nullable(Type.Integer(), {
    description: 'The HTTP status of the last attempt; null when it got no answer.'
  }),
  lastError: Nullable(Type.String(), { description: 'Why the last attempt failed; null after a success.' }),
  createdAt: Timestamp
}, { 'x-component': 'WebhookDelivery', title: 'WebhookDelivery' })

export const SendListQuery = Type.Object({
  status: Type.Optional(StringEnum(sendStatuses, { description: 'Only deliveries in this status.' })),
  limit: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 20,
    description: 'Deliveries per page (1–100, default 20).'
  }),
  after: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'A `nextCursor` from the previous page: the older deliveries follow.'
  }))
})
export type SendListQuery = Static<typeof SendListQuery>

export const SendParams = Type.Object({ id: Id, deliveryId: Id })

export const WebhookTestEventData = Type.Object({
  endpointId: Id
}, { title: 'WebhookTestEventData', description: 'The endpoint the test was sent to.' })

/** The data of a request to the delivery endpoint (docs/delivery-endpoint.md). */
export const DeliveryRequestData = Type.Object({
  order: OrderSchema,
  test: Type.Boolean({
    description: '`true` only for `POST /v1/delivery-endpoint/test`: a sample order that does not exist.'
  })
}, { title: 'DeliveryRequestData' })

/** A delivery's body: the event's kind, its createdAt, and its data. */
function webhookBody<T extends TSchema> (data: T) {
  return Type.Object({ type: Type.String(), timestamp: Timestamp, data }, { title: 'WebhookBody' })
}

/** Each feed event kind's data: a new kind without a row here does not compile. */
const eventData: Record<EventType, TSchema> = {
  'order.paid': OrderEventData,
  'order.taken': OrderEventData,
  'order.delivered': OrderEventData,
  'order.cancelled': OrderEventData,
  'order.completed': OrderEventData,
  'order.updated': OrderEventData,
  'message.created': MessageEventData,
  'stock.low': StockLowEventData,
  'stock.empty': StockEmptyEventData,
  'order.delivery_failed': OrderDeliveryFailedEventData,
  'claim.opened': ClaimEventData,
  'claim.escalated': ClaimEventData,
  'claim.resolved': ClaimEventData,
  'chat.seller_called': ChatSellerCalledEventData
}

/** The body schema of a delivery of `eventType`: its data is the event's payload (or the test's). */
export function webhookBodySchema (eventType: string) {
  if (eventType === WEBHOOK_TEST_EVENT) return webhookBody(WebhookTestEventData)
  if (eventType === DELIVERY_REQUEST_TYPE) return webhookBody(DeliveryRequestData)
  const data = eventData[eventType as EventType]
  if (!data) throw new Error(`no webhook body for event type ${eventType}`)
  return webhookBody(data)
}
