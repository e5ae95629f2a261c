// A runnable delivery endpoint (docs/delivery-endpoint.md): the service asks it
// for the goods of each purchase of a product with `autoDelivery: "endpoint"`,
// it mints one key per item and answers them. Built on the typed client's
// deliveryHandler, which checks the signature and shapes the answer.
//
//   DELIVERY_SECRET=whsec_… PORT=8080 npx tsx examples/delivery-endpoint.ts
//
// Idempotent by webhook-id: a request asked again (the service retries when an
// answer is lost) gets the same keys, so a supplier is never charged twice.
// A real endpoint keeps that map in its database; here it lives in memory.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { CannotSupply, deliveryHandler } from '../client/index.js'

const secret = process.env.DELIVERY_SECRET
if (!secret) throw new Error('DELIVERY_SECRET is required (the secret PUT /v1/delivery-endpoint returned)')
const port = Number(process.env.PORT ?? 8080)
/** At most this many keys an order (more: 409, the order stays paid for a person). */
const MAX_KEYS = Number(process.env.MAX_KEYS ?? 100)

const minted = new Map<string, string[]>()
const mintKey = () => randomBytes(8).toString('hex').toUpperCase().match(/.{4}/g)!.join('-')

const server = createServer(deliveryHandler(secret, (order, { webhookId, test }) => {
  if (order.quantity > MAX_KEYS) throw new CannotSupply(`at most ${MAX_KEYS} keys an order`)
  const known = minted.get(webhookId)
  if (known) return known
  const keys = Array.from({ length: order.quantity }, mintKey)
  // A test request has no real order: its keys are not kept.
  if (!test) minted.set(webhookId, keys)
  console.log(`${test ? 'test request' : `order ${order.id}`}: ${keys.length} key(s)`)
  return keys
}))
server.listen(port, '127.0.0.1', () => console.log(`delivery endpoint listening on http://127.0.0.1:${port}`))
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)))
