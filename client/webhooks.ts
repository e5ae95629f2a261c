// Webhook deliveries are signed as Standard Webhooks; `standardwebhooks`
// checks the signature and the timestamp (at most 5 minutes off). What this
// adds: the body typed as the event it carries.
import { Webhook } from 'standardwebhooks'
import type { components } from './schema.js'

type Event = components['schemas']['Event']
/** A delivery's body: `{type, timestamp, data}`, `data` as in the feed's event of that type. */
export type WebhookEvent = { [K in Event['type']]: {
  type: K,
  timestamp: string,
  data: Extract<Event,
  { type: K }>['data']
} }[Event['type']]

/**
 * The event a delivery carries, once its signature checks out with the
 * endpoint's secret (`whsec_…`); throws when it does not, or is too old.
 * `body` must be the raw request body, as received.
 */
export function verifyWebhook (
  secret: string, body: string, headers: Record<string, string | string[] | undefined>
): WebhookEvent {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return new Webhook(secret).verify(body, flat) as WebhookEvent
}
