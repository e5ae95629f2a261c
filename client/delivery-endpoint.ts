// The seller's side of just-in-time delivery (docs/delivery-endpoint.md): a
// node:http handler that checks the request's Standard Webhooks signature with
// `standardwebhooks` (and its timestamp, at most 5 minutes off), asks `supply`
// for the order's values and answers `{"values": [...]}`. So an endpoint is:
//
//   import { createServer } from 'node:http'
//   import { deliveryHandler } from './client/index.js'
//   createServer(deliveryHandler(process.env.DELIVERY_SECRET!, async (order) => [await mintKey(order)])).listen(8080)
//
// `supply` may throw `new CannotSupply('reason')` to answer 409 (the service
// stops asking; the order stays paid for a person or a bot). Any other error is
// a 500, and the service asks again later with the same `webhook-id`.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Webhook } from 'standardwebhooks'
import type { components } from './schema.js'

type Order = components['schemas']['Order']

/** The body of a delivery request. */
export interface DeliveryRequest {
  type: 'order.delivery_requested'
  /** When the request was created (the same on every attempt). */
  timestamp: string
  data: { order: Order, test: boolean }
}

export interface SupplyContext {
  /** The `webhook-id`: the same on every attempt of one request, so a repeat can get the same values. */
  webhookId: string
  /** `true` for `POST /v1/delivery-endpoint/test`: a sample order that does not exist. */
  test: boolean
}

/** The values for an order: 1–100 strings of 1–10 000 characters. */
export type Supply = (order: Order, context: SupplyContext) => string[] | Promise<string[]>

/** Throw from `supply` when the order cannot be supplied: answered 409, no further attempt. */
export class CannotSupply extends Error {}

/** A request body larger than this is refused (413): requests are a few KB. */
const MAX_REQUEST_BYTES = 1024 * 1024

function readBody (req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_REQUEST_BYTES) {
        req.destroy()
        resolve(null)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function answer (res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

/** A request handler for `node:http` (or anything that passes IncomingMessage / ServerResponse). */
export function deliveryHandler (
  secret: string, supply: Supply
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const webhook = new Webhook(secret)
  return async function handleDeliveryRequest (req, res) {
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST only' })
    const body = await readBody(req)
    if (body === null) return answer(res, 413, { error: 'request too large' })
    let request: DeliveryRequest
    try {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value
      request = webhook.verify(body, headers) as DeliveryRequest
    } catch {
      return answer(res, 401, { error: 'invalid signature' })
    }
    try {
      const values = await supply(request.data.order,
        { webhookId: String(req.headers['webhook-id']), test: request.data.test })
      answer(res, 200, { values })
    } catch (err) {
      if (err instanceof CannotSupply) return answer(res, 409, { error: err.message })
      answer(res, 500, { error: 'could not supply' })
    }
  }
}
