// The benchmark's write baseline: the least a server can do for the seller bot's
// writes. A bare Fastify app (no plugins, no schemas, no hooks) on postgres.js
// with named prepared statements and the service's pool size. Per request: the
// key lookup by hash, then in one transaction (BEGIN … COMMIT) the same row work
// as the service's one-statement writes (db/orders.ts transitionOrder,
// db/messages.ts postMessage, db/event-statements.ts): the conditional UPDATE of
// the order (for a chat post, the UPDATE of its last_message_at and the message
// insert), the ledger row where the state machine has one (cancel), the bump of
// the shop's event seq and the event row. The database triggers fire for both
// alike: the order counts, and the event's webhook deliveries
// (events_webhook_fan_out; the bench's shops have no endpoints, so it inserts
// none). No idempotency, no rate limit, no NOTIFY: that is the service's extra
// work being measured. The order's columns, its representation and the times
// are the service's own (db/order-row.ts, db/sql-time.ts). scripts/bench/main.ts
// starts it as a child process.
//
// Env, all set by scripts/bench/main.ts from its validated settings
// (scripts/bench/settings.ts): PORT, DATABASE_URL, DB_POOL_MAX.
import { createHash } from 'node:crypto'
import Fastify from 'fastify'
import postgres from 'postgres'
import { orderRowSql, orderView, type OrderRow } from '../../db/order-row.js'
import { NOW_MS, toMilliseconds } from '../../db/sql-time.js'

const sql = postgres(process.env.DATABASE_URL!, {
  max: Number(process.env.DB_POOL_MAX),
  prepare: true,
  onnotice: () => {},
  connection: { application_name: 'seller-api-bench-write-baseline' }
})

const app = Fastify({ logger: false })

/** The order's columns as the service reads them (db/order-row.ts), with what the event needs. */
type ChangedOrder = OrderRow & { shop_id: string, external: boolean }

async function shopOf (authorization: string | undefined): Promise<string | undefined> {
  const secret = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined
  if (!secret) return undefined
  const hash = createHash('sha256').update(secret).digest('hex')
  const [row] = await sql<{ shop_id: string }[]>`select id, shop_id from api_keys where key_hash = ${hash} and revoked_at is null`
  return row?.shop_id
}

const unauthorized = { success: false, error: { code: 'API_KEY_INVALID', message: 'The API key is missing, malformed, unknown or revoked.' } }
const conflict = { success: false, error: { code: 'ORDER_INVALID_STATUS', message: 'The order\'s status does not allow this.' } }
const returning = sql`returning ${sql.unsafe(orderRowSql('orders'))}, shop_id, external`
const nowMs = sql.unsafe(NOW_MS)
const visible = (shopId: string) => sql`shop_id = ${shopId} and external`

/** The shop's next seq under its row lock, and the event row (whose trigger fans it out to webhook deliveries). */
async function appendEvent (tx: postgres.TransactionSql, shopId: string, type: string, data: unknown) {
  const [shop] = await tx<{ event_seq: number }[]>`update shops set event_seq = event_seq + 1 where id = ${shopId} returning event_seq`
  await tx`insert into events (shop_id, seq, type, data) values (${shopId}, ${shop.event_seq}, ${type}, ${sql.json(data as postgres.JSONValue)})`
}

type Action = 'take' | 'deliver' | 'cancel'

function transition (tx: postgres.TransactionSql, action: Action, orderId: string, shopId: string, body: { value?: string, reason?: string } | undefined) {
  if (action === 'take') {
    return tx<ChangedOrder[]>`update orders set status = 'processing', assignee_type = 'api', taken_at = ${nowMs},
      updated_at = ${nowMs} where id = ${orderId} and status in ('paid') and ${visible(shopId)} ${returning}`
  }
  if (action === 'deliver') {
    const values = body?.value === undefined ? [] : [body.value]
    return tx<ChangedOrder[]>`update orders set delivered_values = ${sql.json(values)}, status = 'awaiting_confirmation',
      delivered_at = ${nowMs}, updated_at = ${nowMs}
      where id = ${orderId} and status in ('processing') and ${visible(shopId)} ${returning}`
  }
  return tx<ChangedOrder[]>`update orders set cancel_reason = ${body?.reason ?? null}, status = 'cancelled', cancelled_at = ${nowMs},
    updated_at = ${nowMs}
    where id = ${orderId} and status in ('paid', 'processing', 'awaiting_confirmation') and ${visible(shopId)} ${returning}`
}

const eventTypes: Record<Action, string> = { take: 'order.taken', deliver: 'order.delivered', cancel: 'order.cancelled' }

app.get('/healthz', async () => ({ status: 'ok' }))

app.post('/v1/orders/:id/:action(take|deliver|cancel)', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const { id, action } = request.params as { id: string, action: Action }
  const order = await sql.begin(async (tx) => {
    const [row] = await transition(tx, action, id, shopId, request.body as { value?: string, reason?: string } | undefined)
    if (!row) return null
    if (action === 'cancel') await tx`insert into ledger_entries (shop_id, order_id, kind, amount) values (${row.shop_id}, ${row.id}, 'refund', ${row.amount})`
    const view = orderView(row)
    if (row.external) await appendEvent(tx, row.shop_id, eventTypes[action], { order: view })
    return view
  })
  if (!order) return reply.code(409).send(conflict)
  return { success: true, data: { order } }
})

app.post('/v1/orders/:id/messages', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const { id } = request.params as { id: string }
  const text = (request.body as { text: string }).text.trim()
  const message = await sql.begin(async (tx) => {
    const [order] = await tx<{ id: string, shop_id: string, external: boolean, last_message_at: Date }[]>`
      update orders set last_message_at = greatest(${sql.unsafe(toMilliseconds('clock_timestamp()'))}, last_message_at + interval '1 millisecond')
      where id = ${id} and ${visible(shopId)} returning id, shop_id, external, last_message_at`
    if (!order) return null
    const [row] = await tx<{ id: string, sender_role: string, text: string, created_at: Date }[]>`
      insert into order_messages (order_id, sender_role, text, created_at) values (${id}, 'seller', ${text}, ${order.last_message_at})
      returning id, sender_role, text, created_at`
    const view = { id: row.id, senderRole: row.sender_role, text: row.text, createdAt: row.created_at.toISOString() }
    if (order.external) await appendEvent(tx, order.shop_id, 'message.created', { orderId: id, message: view })
    return view
  })
  if (!message) return reply.code(404).send({ success: false, error: { code: 'ORDER_NOT_FOUND', message: 'Order not found.' } })
  return reply.code(201).send({ success: true, data: { message } })
})

app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).catch((err) => {
  console.error(err)
  process.exit(1)
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.close().then(() => sql.end({ timeout: 2 })).finally(() => process.exit(0))
  })
}
