// The requests the service sends, as the OpenAPI 3.1 `webhooks` section of the
// seller document: one webhook per event kind of the feed (docs/webhooks.md),
// the test webhook, and the request to the shop's delivery endpoint
// (docs/delivery-endpoint.md) with the answer it expects. Each body is a named
// component (`OrderPaidWebhook`, …) whose `data` is the feed's payload schema,
// and the Standard Webhooks headers are named parameters: a receiver generates
// its types from the same document as a caller.
import { DELIVERY_REQUEST_TYPE, WEBHOOK_TEST_EVENT } from '../domain/event-types.js'
import { MAX_ANSWER_VALUE_LENGTH, MAX_ANSWER_VALUES } from '../domain/delivery-answer.js'
import { Timestamp } from '../schemas/common.js'
import { eventKinds } from '../schemas/events.js'
import { DeliveryRequestData, WebhookTestEventData } from '../schemas/webhooks.js'

type Json = Record<string, unknown>

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` })

/** The headers of every webhook and delivery request (Standard Webhooks). */
export const webhookParameters: Record<string, Json> = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event\'s id (a delivery request\'s id): the same on every attempt. Deduplicate by it.',
    schema: { type: 'string', format: 'uuid' }
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was made, in Unix seconds. Refuse one too far from your clock ' +
      '(the libraries allow 5 minutes).',
    schema: { type: 'string', pattern: '^[0-9]+$' }
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: '`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, ' +
      'keyed with the base64-decoded part of the secret after `whsec_`; ' +
      'two, space-separated, for 24 hours after a rotation. The `standardwebhooks` libraries check it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' }
  }
}

/** The body `{type, timestamp, data}` of the requests of `type`, its data the named schema `data`. */
function body (type: string, data: Json, description: string): Json {
  return {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    description,
    properties: {
      type: { type: 'string', enum: [type] },
      timestamp: { ...Timestamp, description: 'The event\'s `createdAt` (a delivery request\'s creation).' },
      data
    }
  }
}

/** `OrderPaidEvent` → `OrderPaidWebhook`. */
const webhookName = (eventName: string) => eventName.replace(/Event$/, 'Webhook')

const received = {
  '2XX': { description: 'Received. Any 2xx within `WEBHOOK_TIMEOUT_MS` (10 s by default) ends the delivery.' },
  default: {
    description: 'Anything else (another status, a redirect, no answer in time) is a failed attempt, ' +
      'made again on the retry schedule with the same `webhook-id`.'
  }
}

function webhook (operationId: string, summary: string, component: string, responses: Json, description: string): Json {
  return {
    post: {
      operationId,
      summary,
      description,
      tags: ['webhooks'],
      // No API key: the receiver checks the signature header.
      security: [],
      parameters: Object.keys(webhookParameters).map(parameterRef),
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef(component) } } },
      responses
    }
  }
}

/** The answer a delivery request wants (docs/delivery-endpoint.md). */
const DeliveryAnswer: Json = {
  type: 'object',
  required: ['values'],
  description: 'The goods of the order: 1–100 values, as the deliver call takes them.',
  properties: {
    values: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ANSWER_VALUES,
      items: { type: 'string', minLength: 1, maxLength: MAX_ANSWER_VALUE_LENGTH }
    }
  }
}

interface WebhooksSection { webhooks: Json, schemas: Record<string, Json>, parameters: Record<string, Json> }

/**
 * The `webhooks` section and the components it names. The schemas (raw
 * TypeBox JSON) go through the document's normalization like the routes' do.
 */
export function webhooksSection (): WebhooksSection {
  const schemas: Record<string, Json> = {}
  const webhooks: Json = {}
  for (const kind of eventKinds) {
    const type = (kind.properties.type as { const: string }).const
    const name = webhookName(kind.$id!)
    const data = (kind.properties.data as unknown as { $ref: string }).$ref
    const what = `The \`${type}\` event, as the feed carries it: ${kind.description}`
    schemas[name] = { title: name, ...body(type, schemaRef(data), what) }
    const sent = `Sent to each enabled webhook endpoint whose \`eventTypes\` include \`${type}\` (or are \`[]\`).`
    const operationId = `${name[0].toLowerCase()}${name.slice(1)}`
    webhooks[type] = webhook(operationId, type, name, received, `${sent} ${kind.description}`)
  }
  schemas.WebhookTestEventData = WebhookTestEventData as unknown as Json
  schemas.TestWebhook = {
    title: 'TestWebhook',
    ...body(WEBHOOK_TEST_EVENT, schemaRef('WebhookTestEventData'), 'The test call\'s webhook.')
  }
  webhooks[WEBHOOK_TEST_EVENT] = webhook('testWebhook', WEBHOOK_TEST_EVENT, 'TestWebhook', received,
    'Sent only by `POST /v1/webhook-endpoints/{id}/test`, only to that endpoint, whatever its `eventTypes`.')
  schemas.DeliveryRequestData = DeliveryRequestData as unknown as Json
  schemas.DeliveryRequestWebhook = {
    title: 'DeliveryRequestWebhook',
    ...body(DELIVERY_REQUEST_TYPE, schemaRef('DeliveryRequestData'),
      'A request to the shop\'s delivery endpoint for the goods of a paid order.')
  }
  schemas.DeliveryAnswer = DeliveryAnswer
  webhooks[DELIVERY_REQUEST_TYPE] = webhook('deliveryRequestWebhook', DELIVERY_REQUEST_TYPE, 'DeliveryRequestWebhook', {
    200: {
      description: 'The goods: the order is delivered with these values.',
      content: { 'application/json': { schema: schemaRef('DeliveryAnswer') } }
    },
    409: {
      description: 'Cannot supply this order: no further attempt; the order stays `paid` ' +
        'and the feed gets `order.delivery_failed`.'
    },
    422: { description: 'Cannot supply this order, as 409.' },
    default: {
      description: 'Anything else (another status, a body not of the shape above, ' +
        'no answer within `DELIVERY_TIMEOUT_MS`) is a failed attempt, made again on `DELIVERY_RETRY_SCHEDULE`.'
    }
  }, 'Sent to the shop\'s delivery endpoint for each paid order of a product with `autoDelivery: "endpoint"` ' +
    '(`test: true` from `POST /v1/delivery-endpoint/test`).')
  return { webhooks, schemas, parameters: webhookParameters }
}
