// The benchmark's baseline: the least a server can do for the seller bot's two hot
// routes. A bare Fastify app (no plugins, no schemas, no hooks) on postgres.js with
// the service's pool size, doing the same two SQL round trips per request as the
// service: the key lookup by SHA-256 hash, then the page query (same SQL shape as
// db/orders.ts listOrders and db/messages.ts listMessages), answered with the same
// JSON envelope. scripts/bench.ts transpiles and starts it as a child process;
// it is not part of the service.
//
// Env: PORT, DATABASE_URL, DB_POOL_MAX (default 10), BENCH_BASELINE_PREPARE (`0`:
// unnamed statements, parsed and planned on every call, as drizzle sends them).
import { createHash } from 'node:crypto'
import Fastify from 'fastify'
import postgres from 'postgres'

const sql = postgres(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', {
  max: Number(process.env.DB_POOL_MAX ?? 10),
  prepare: process.env.BENCH_BASELINE_PREPARE !== '0',
  onnotice: () => {},
  connection: { application_name: 'seller-api-bench-baseline' }
})

const app = Fastify({ logger: false })

interface KeyRow { id: string, shop_id: string }

async function shopOf (authorization: string | undefined): Promise<KeyRow | undefined> {
  const secret = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined
  if (!secret) return undefined
  const hash = createHash('sha256').update(secret).digest('hex')
  const [row] = await sql<KeyRow[]>`select id, shop_id from api_keys where key_hash = ${hash} and revoked_at is null`
  return row
}

const unauthorized = { success: false, error: { code: 'API_KEY_INVALID', message: 'The API key is missing, malformed, unknown or revoked.' } }
const iso = (d: Date | null) => d === null ? null : d.toISOString()

app.get('/healthz', async () => ({ status: 'ok' }))

app.get('/v1/orders', async (request, reply) => {
  const key = await shopOf(request.headers.authorization)
  if (!key) return reply.code(401).send(unauthorized)
  const query = request.query as { limit?: string }
  const limit = Number(query.limit ?? 20)
  const rows = await sql`
    select o.id, o.status, o.created_at, o.product_id, o.product_title, o.quantity, o.amount,
           o.field_values, o.assignee_type, o.delivered_values, o.taken_at, o.delivered_at,
           count(*) over () as total
    from orders o join products p on p.id = o.product_id
    where o.shop_id = ${key.shop_id} and o.status in ('paid') and p.external = true
    order by o.created_at asc, o.id asc
    limit ${limit} offset 0`
  const orders = rows.map((r) => ({
    id: r.id,
    status: r.status,
    createdAt: r.created_at.toISOString(),
    productId: r.product_id,
    productTitle: r.product_title,
    quantity: r.quantity,
    amount: Number(r.amount),
    fieldValues: r.field_values,
    assigneeType: r.assignee_type,
    deliveredValue: r.delivered_values.length === 0 ? null : r.delivered_values.join('\n'),
    deliveredValues: r.delivered_values,
    takenAt: iso(r.taken_at),
    deliveredAt: iso(r.delivered_at)
  }))
  return { success: true, data: { orders, total: rows.length > 0 ? Number(rows[0].total) : 0, page: 1, limit } }
})

app.get('/v1/orders/:id/messages', async (request, reply) => {
  const key = await shopOf(request.headers.authorization)
  if (!key) return reply.code(401).send(unauthorized)
  const { id } = request.params as { id: string }
  const query = request.query as { cursor?: string, limit?: string }
  const limit = Number(query.limit ?? 50)
  const cursor = query.cursor ?? null
  const rows = await sql`
    select o.id as order_id, m.id, m.sender_role, m.text, m.created_at
    from orders o
    left join lateral (
      select id, sender_role, text, created_at from order_messages
      where order_id = o.id ${cursor === null ? sql`` : sql`and created_at > ${cursor}::timestamptz`}
      order by created_at asc limit ${limit}
    ) m on true
    where o.id = ${id} and o.shop_id = ${key.shop_id}
      and exists (select 1 from products p where p.id = o.product_id and p.external)
    order by m.created_at asc`
  if (rows.length === 0) return reply.code(404).send({ success: false, error: { code: 'ORDER_NOT_FOUND', message: 'Order not found.' } })
  const messages = rows.filter((r) => r.id !== null)
    .map((r) => ({ id: r.id, senderRole: r.sender_role, text: r.text, createdAt: r.created_at.toISOString() }))
  return { success: true, data: { messages, nextCursor: messages.at(-1)?.createdAt ?? cursor } }
})

app.listen({ port: Number(process.env.PORT ?? 3100), host: '127.0.0.1' }).catch((err) => {
  console.error(err)
  process.exit(1)
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.close().then(() => sql.end({ timeout: 2 })).finally(() => process.exit(0))
  })
}
