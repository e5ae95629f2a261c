// The benchmark's read baseline: the least a server can do for the seller bot's
// two hot routes. A bare Fastify app (no plugins, no schemas, no hooks) on
// postgres.js with the service's pool size: per request the key lookup by SHA-256
// hash (the service skips it for keys it has cached), then the page query, the
// very SQL of db/orders.ts listOrders and db/messages.ts listMessages (the
// order's columns and the times written by the service's own db/order-row.ts and
// db/sql-time.ts), answered with the same JSON envelope. scripts/bench/main.ts
// transpiles and starts it as a child process; it is not part of the service.
//
// Env, all set by scripts/bench/main.ts from its validated settings
// (scripts/bench/settings.ts): PORT, DATABASE_URL, DB_POOL_MAX,
// BENCH_BASELINE_PREPARE (`0`: unnamed statements, parsed and planned on every call).
import { createHash } from 'node:crypto'
import Fastify from 'fastify'
import postgres from 'postgres'
import { orderResponseColumns } from '../../db/order-row.js'
import { isoTime } from '../../db/sql-time.js'

const sql = postgres(process.env.DATABASE_URL!, {
  max: Number(process.env.DB_POOL_MAX),
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

app.get('/healthz', async () => ({ status: 'ok' }))

const orderColumns = orderResponseColumns('o')
const messageCreatedAt = isoTime('m.created_at')

app.get('/v1/orders', async (request, reply) => {
  const key = await shopOf(request.headers.authorization)
  if (!key) return reply.code(401).send(unauthorized)
  const query = request.query as { limit?: string }
  const limit = Number(query.limit ?? 20)
  const rows = await sql`
    select c.total, ${sql.unsafe(orderColumns)}
    from (
      select coalesce(sum(n.count), 0)::int as total
      from order_counts n join products p on p.id = n.product_id and p.external
      where n.shop_id = ${key.shop_id} and n.status = 'paid'
    ) c
    left join (
      select * from orders where shop_id = ${key.shop_id} and status = 'paid' and external
      order by created_at asc, id asc limit ${limit}::int offset 0
    ) o on true
    order by o.created_at asc, o.id asc`
  const orders = rows[0].id === null ? [] : rows.map(({ total, ...order }) => order)
  return { success: true, data: { orders, total: rows[0].total, page: 1, limit } }
})

app.get('/v1/orders/:id/messages', async (request, reply) => {
  const key = await shopOf(request.headers.authorization)
  if (!key) return reply.code(401).send(unauthorized)
  const { id } = request.params as { id: string }
  const query = request.query as { cursor?: string, limit?: string }
  const limit = Number(query.limit ?? 50)
  const cursor = query.cursor ?? null
  const rows = await sql`
    select o.id as "orderId", m.id, m.sender_role as "senderRole", m.text, ${sql.unsafe(messageCreatedAt)} as "createdAt"
    from orders o
    left join (
      select id, sender_role, text, created_at from order_messages
      where order_id = ${id} ${cursor === null ? sql`` : sql`and created_at > ${cursor}::timestamptz`}
      order by created_at limit ${limit}::int
    ) m on true
    where o.id = ${id} and o.shop_id = ${key.shop_id} and o.external
    order by m.created_at`
  if (rows.length === 0) return reply.code(404).send({ success: false, error: { code: 'ORDER_NOT_FOUND', message: 'Order not found.' } })
  const messages = rows[0].id === null ? [] : rows.map(({ orderId, ...message }) => message)
  return { success: true, data: { messages, nextCursor: messages.at(-1)?.createdAt ?? cursor } }
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
