// The body of a delivery, `{"type", "timestamp", "data"}`, serialized by the
// same TypeBox schemas that describe the events feed (schemas/events.ts), so a
// webhook and a feed entry of one event carry the same data in the same shape.
import fastJson from 'fast-json-stringify'
import { DELIVERY_REQUEST_TYPE, eventTypes, WEBHOOK_TEST_EVENT } from '../../domain/event-types.js'
import { webhookBodySchema } from '../../schemas/webhooks.js'

const serializers = new Map([...eventTypes, WEBHOOK_TEST_EVENT,
  DELIVERY_REQUEST_TYPE].map((type) => [type, fastJson(webhookBodySchema(type))]))

export function webhookBody (type: string, timestamp: string, data: unknown): string {
  const serialize = serializers.get(type)
  if (!serialize) throw new Error(`no webhook body for event type ${type}`)
  return serialize({ type, timestamp, data })
}
