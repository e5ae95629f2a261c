// The delivery endpoint and delivery requests (docs/delivery-endpoint.md) as the
// API takes and returns them.
import { deliveryRequestStatuses } from '../domain/delivery-answer.js'
import { Type } from '@sinclair/typebox'
import { MAX_QUANTITY } from '../domain/purchase.js'
import { MAX_WEBHOOK_URL_LENGTH } from '../domain/webhook-url.js'
import { Id, Nullable, SecretString, StringEnum, Timestamp } from './common.js'

export const DeliveryEndpointBody = Type.Object({
  url: Type.String({
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    description: `Absolute \`https://\` URL, at most ${MAX_WEBHOOK_URL_LENGTH} characters, of a public host ` +
      '(the rules of webhook endpoints). Stored in normalised form. Replacing it applies from the next ' +
      'attempt of pending requests.'
  })
}, { 'x-component': 'DeliveryEndpointInput' })

export const DeliveryEndpointSchema = Type.Object({
  url: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { 'x-component': 'DeliveryEndpoint', title: 'DeliveryEndpoint' })

export const DeliveryEndpointSecret = SecretString(
  'The signing secret, `whsec_` + base64 of 32 random bytes, as for webhooks. Shown only when ' +
    'the endpoint is created and on rotation: keep it.')

export const DeliveryTestBody = Type.Object({
  productId: Id,
  quantity: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: Math.min(1000, MAX_QUANTITY),
    default: 1,
    description: 'The sample order\'s quantity (1–1000, default 1).'
  }))
}, { 'x-component': 'DeliveryEndpointTestInput' })

export const DeliveryTestResult = Type.Object({
  ok: Type.Boolean({ description: 'The answer would deliver a real order.' }),
  statusCode: Nullable(Type.Integer(), { description: 'The HTTP status answered; null when no answer came.' }),
  durationMs: Type.Integer({ description: 'From sending the request to the end of the answer.' }),
  valuesCount: Nullable(Type.Integer(), {
    description: 'How many values the answer held (when it had a ' +
    '`values` array); the values themselves are never shown.'
  }),
  problems: Type.Array(Type.String(), { description: 'In words, what would make a real answer fail; `[]` when `ok`.' })
}, { 'x-component': 'DeliveryEndpointTestResult', title: 'DeliveryEndpointTestResult' })

export { deliveryRequestStatuses }

export const DeliveryAttemptSchema = Type.Object({
  at: Timestamp,
  statusCode: Nullable(Type.Integer(), { description: 'The HTTP status answered; null when no answer came.' }),
  error: Nullable(Type.String(), {
    description: 'What was wrong, in words (never the values); null when the answer was used.'
  }),
  durationMs: Type.Integer()
}, { title: 'DeliveryAttempt' })

export const DeliveryRequestSchema = Type.Object({
  id: Id,
  orderId: Id,
  status: StringEnum(deliveryRequestStatuses, {
    description: '`pending` while attempts go on; `succeeded`: the order was delivered with the answer\'s ' +
      'values; `failed`: no attempt left, the endpoint answered 409 / 422, or it was deleted (the order stays ' +
      '`paid`); `discarded`: the order left `paid` before an answer could be used.'
  }),
  attempts: Type.Array(DeliveryAttemptSchema, { description: 'Every attempt, oldest first, across retries.' }),
  nextAttemptAt: Nullable(Timestamp, { description: 'When the next attempt is due; null once the request has ended.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { 'x-component': 'DeliveryRequest', title: 'DeliveryRequest' })
