// The benchmarks' baseline (docs/performance.md, "Baselines"): the least a server
// can do for the requests the service is measured on. A bare Fastify app (no
// plugins, no schemas, no hooks) on postgres.js with the service's pool size and
// named prepared statements, written by hand against the same tables, so the same
// triggers fire (order counts, the `external` copy, the events' webhook fan-out).
// It imports nothing of the service: its SQL is its own, and the bench checks
// before loading that it answers as the service does.
//  - Reads: the key looked up by its SHA-256 on every request, then the page.
//  - Writes (take, deliver, cancel, chat post): in one transaction the order's
//    conditional UPDATE (the message insert), the ledger row of a cancel, the
//    shop's event seq and the event row.
//  - The stock purchase (POST /internal/v1/orders, a product with `autoDelivery:
//    stock`): in one transaction the product read, priced and locked, the
//    variant's count lowered when it holds enough, the items taken oldest first
//    through the partial index of available items and marked, their values
//    decrypted (AES-256-GCM, as the service stores them), the order inserted
//    delivered, and `order.paid` + `order.delivered` under the shop's seq.
//  - The claim replaced from stock (POST /v1/claims/{id}/replace, no body): in
//    one transaction the claim locked, the product and the order locked, the
//    reported items found by their position, one item per position taken oldest
//    first through the partial index and numbered, the reported items marked
//    defective, the counts changed in one UPDATE, the order's values opened and
//    sealed again (AES-256-GCM, the order id as associated data), the claim
//    settled, the chat's system message, and `order.updated`, `message.created`,
//    `claim.resolved` under the shop's seq (the service's own rows).
//  - The feed page (GET /v1/events, no cursor): the shop's first `limit` events
//    and its positions in one statement, each order an event carries opened
//    when its values are sealed (AES-256-GCM), the cursor as the service writes it.
// No idempotency, no rate limit, no NOTIFY, no validation: that is what the
// service adds, and what the comparison measures.
//
// Env (set by the bench that starts it): PORT, DATABASE_URL, DB_POOL_MAX,
// BENCH_BASELINE_PREPARE (`0`: unnamed statements), INTERNAL_TOKEN,
// VALUES_ENCRYPTION_KEY (base64 of 32 bytes).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import postgres from 'postgres'

const env = process.env
const sql = postgres(env.DATABASE_URL!, {
  max: Number(env.DB_POOL_MAX ?? 10),
  prepare: env.BENCH_BASELINE_PREPARE !== '0',
  onnotice: () => {},
  connection: { application_name: 'seller-api-bench-baseline' }
})
const stockKey = env.VALUES_ENCRYPTION_KEY ? Buffer.from(env.VALUES_ENCRYPTION_KEY, 'base64') : null
const app = Fastify({ logger: false })

// ---------------------------------------------------------------- SQL of the API's shapes

const iso = (time: string) => `to_char(${time} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
const NOW_MS = "date_trunc('milliseconds', now())"
/** The order of alias `o` as the API writes it, as columns. */
const orderColumns = (o: string) => [
  `${o}.id`, `${o}.status`, `${iso(`${o}.created_at`)} as "createdAt"`, `${o}.product_id as "productId"`,
  `${o}.product_title as "productTitle"`, `${o}.quantity`, `${o}.amount::float8 as amount`, `${o}.field_values as "fieldValues"`,
  `${o}.assignee_type as "assigneeType"`,
  `case when jsonb_typeof(${o}.delivered_values) <> 'array' or ${o}.delivered_values = '[]'::jsonb then null
    else array_to_string(array(select jsonb_array_elements_text(${o}.delivered_values)), E'\\n') end as "deliveredValue"`,
  `${o}.delivered_values as "deliveredValues"`, `${iso(`${o}.taken_at`)} as "takenAt"`, `${iso(`${o}.delivered_at`)} as "deliveredAt"`
].join(', ')
const returning = sql.unsafe(`returning ${orderColumns('orders')}, shop_id, external`)
const nowMs = sql.unsafe(NOW_MS)

const fail = (code: string, message: string) => ({ success: false, error: { code, message } })
const unauthorized = fail('API_KEY_INVALID', 'The API key is missing, malformed, unknown or revoked.')
const notFound = fail('ORDER_NOT_FOUND', 'Order not found.')

async function shopOf (authorization: string | undefined): Promise<string | undefined> {
  const secret = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined
  if (!secret) return undefined
  const hash = createHash('sha256').update(secret).digest('hex')
  const [row] = await sql<{ shop_id: string }[]>`select id, shop_id from api_keys where key_hash = ${hash} and revoked_at is null`
  return row?.shop_id
}

/** `events` appended to the shop's feed under its row lock, as consecutive seqs. */
async function appendEvents (tx: postgres.TransactionSql, shopId: string, events: Array<[type: string, data: unknown]>) {
  const [shop] = await tx<{ event_seq: string }[]>`
    update shops set event_seq = event_seq + ${events.length} where id = ${shopId} returning event_seq`
  const first = Number(shop.event_seq) - events.length + 1
  for (const [i, [type, data]] of events.entries()) {
    await tx`insert into events (shop_id, seq, type, data) values (${shopId}, ${first + i}, ${type}, ${sql.json(data as postgres.JSONValue)})`
  }
}

app.get('/healthz', async () => ({ status: 'ok' }))

// ---------------------------------------------------------------- reads

app.get('/v1/orders', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const limit = Number((request.query as { limit?: string }).limit ?? 20)
  const rows = await sql`
    select c.total, ${sql.unsafe(orderColumns('o'))}
    from (
      select coalesce(sum(n.count), 0)::int as total
      from order_counts n join products p on p.id = n.product_id and p.external
      where n.shop_id = ${shopId} and n.status = 'paid'
    ) c
    left join (
      select * from orders where shop_id = ${shopId} and status = 'paid' and external
      order by created_at asc, id asc limit ${limit}::int offset 0
    ) o on true
    order by o.created_at asc, o.id asc`
  const orders = rows[0].id === null ? [] : rows.map(({ total, ...order }) => order)
  return { success: true, data: { orders, total: rows[0].total, page: 1, limit } }
})

app.get('/v1/orders/:id/messages', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const { id } = request.params as { id: string }
  const query = request.query as { cursor?: string, limit?: string }
  const limit = Number(query.limit ?? 50)
  const cursor = query.cursor ?? null
  const rows = await sql`
    select o.id as "orderId", m.id, m.sender_role as "senderRole", m.text, m.rule_id as "ruleId",
      ${sql.unsafe(iso('m.created_at'))} as "createdAt"
    from orders o
    left join (
      select id, sender_role, text, rule_id, created_at from order_messages
      where order_id = ${id} ${cursor === null ? sql`` : sql`and created_at > ${cursor}::timestamptz`}
      order by created_at limit ${limit}::int
    ) m on true
    where o.id = ${id} and o.shop_id = ${shopId} and o.external
    order by m.created_at`
  if (rows.length === 0) return reply.code(404).send(notFound)
  const messages = rows[0].id === null ? [] : rows.map(({ orderId, ...message }) => message)
  return { success: true, data: { messages, nextCursor: messages.at(-1)?.createdAt ?? cursor } }
})

// ---------------------------------------------------------------- writes

type Action = 'take' | 'deliver' | 'cancel'
type Changed = Record<string, unknown> & { id: string, amount: number, shop_id: string, external: boolean }
const eventTypes: Record<Action, string> = { take: 'order.taken', deliver: 'order.delivered', cancel: 'order.cancelled' }

function transition (tx: postgres.TransactionSql, action: Action, id: string, shopId: string, body: { value?: string, reason?: string } | undefined) {
  const mine = sql`id = ${id} and shop_id = ${shopId} and external`
  if (action === 'take') {
    return tx<Changed[]>`update orders set status = 'processing', assignee_type = 'api', taken_at = ${nowMs}, updated_at = ${nowMs}
      where ${mine} and status in ('paid') ${returning}`
  }
  if (action === 'deliver') {
    return tx<Changed[]>`update orders set delivered_values = ${sql.json(body?.value === undefined ? [] : [body.value])},
      status = 'awaiting_confirmation', delivered_at = ${nowMs}, updated_at = ${nowMs}
      where ${mine} and status in ('processing') ${returning}`
  }
  return tx<Changed[]>`update orders set cancel_reason = ${body?.reason ?? null}, status = 'cancelled', cancelled_at = ${nowMs},
    updated_at = ${nowMs} where ${mine} and status in ('paid', 'processing', 'awaiting_confirmation') ${returning}`
}

app.post('/v1/orders/:id/:action(take|deliver|cancel)', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const { id, action } = request.params as { id: string, action: Action }
  const order = await sql.begin(async (tx) => {
    const [row] = await transition(tx, action, id, shopId, request.body as { value?: string, reason?: string } | undefined)
    if (!row) return null
    const { shop_id: shop, external, ...view } = row
    if (action === 'cancel') await tx`insert into ledger_entries (shop_id, order_id, kind, amount) values (${shop}, ${row.id}, 'refund', ${row.amount})`
    if (external) await appendEvents(tx, shop, [[eventTypes[action], { order: view }]])
    return view
  })
  if (!order) return reply.code(409).send(fail('ORDER_INVALID_STATUS', 'The order\'s status does not allow this.'))
  return { success: true, data: { order } }
})

app.post('/v1/orders/:id/messages', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const { id } = request.params as { id: string }
  const text = (request.body as { text: string }).text.trim()
  const message = await sql.begin(async (tx) => {
    const [order] = await tx<{ id: string, shop_id: string, external: boolean, last_message_at: Date }[]>`
      update orders set last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()), last_message_at + interval '1 millisecond')
      where id = ${id} and shop_id = ${shopId} and external returning id, shop_id, external, last_message_at`
    if (!order) return null
    const [row] = await tx<{ id: string, sender_role: string, text: string, created_at: Date, rule_id: string | null }[]>`
      insert into order_messages (order_id, sender_role, text, created_at) values (${id}, 'seller', ${text}, ${order.last_message_at})
      returning id, sender_role, text, created_at, rule_id`
    const view = {
      id: row.id, senderRole: row.sender_role, text: row.text, createdAt: row.created_at.toISOString(), ruleId: row.rule_id
    }
    if (order.external) await appendEvents(tx, order.shop_id, [['message.created', { orderId: id, message: view }]])
    return view
  })
  if (!message) return reply.code(404).send(notFound)
  return reply.code(201).send({ success: true, data: { message } })
})

// ---------------------------------------------------------------- the stock purchase

/** The variant of a product without a stock field (the service's NO_OPTION). */
const NO_OPTION = '00000000-0000-0000-0000-000000000000'

function decrypt (ciphertext: Buffer, nonce: Buffer, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', stockKey!, nonce)
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16))
  return Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]).toString('utf8')
}

app.post('/internal/v1/orders', async (request, reply) => {
  if (request.headers.authorization !== `Bearer ${env.INTERNAL_TOKEN}`) return reply.code(401).send(unauthorized)
  const { productId, quantity } = request.body as { productId: string, quantity: number }
  const order = await sql.begin(async (tx) => {
    const [product] = await tx<{ shop_id: string, title: string, price: string, active: boolean, archived: boolean }[]>`
      select shop_id, title, price::text as price, active, archived from products where id = ${productId} for no key update`
    if (!product?.active || product.archived) return null
    const amount = (Math.round(Number(product.price) * 100) * quantity / 100).toFixed(2)
    const [count] = await tx`update stock_counts set available = available - ${quantity}, delivered = delivered + ${quantity},
      updated_at = ${nowMs} where product_id = ${productId} and option_key = ${NO_OPTION} and available >= ${quantity} returning available`
    if (!count) throw new Error('the baseline ran out of stock')
    const orderId = randomUUID()
    const items = await tx<{ position: string, ciphertext: Buffer, nonce: Buffer }[]>`
      update stock_items i set status = 'delivered', order_id = ${orderId}, delivered_at = ${nowMs}
      from (
        select id from stock_items where product_id = ${productId} and option_key between ${NO_OPTION} and ${NO_OPTION}
          and status = 'available' order by option_key, position limit ${quantity} for update skip locked
      ) t where i.id = t.id returning i.position::text as position, i.ciphertext, i.nonce`
    if (items.length < quantity) throw new Error('stock items locked by another transaction')
    items.sort((a, b) => Number(BigInt(a.position) - BigInt(b.position)))
    const values = items.map((item) => decrypt(item.ciphertext, item.nonce, productId))
    const [row] = await tx<Changed[]>`insert into orders (id, shop_id, product_id, product_title, quantity, amount, field_values,
        status, assignee_type, delivered_values, created_at, taken_at, delivered_at, updated_at)
      values (${orderId}, ${product.shop_id}, ${productId}, ${product.title}, ${quantity}, ${amount}, '[]', 'awaiting_confirmation',
        'auto', ${sql.json(values)}, ${nowMs}, ${nowMs}, ${nowMs}, ${nowMs}) ${returning}`
    const { shop_id: shop, external, ...view } = row
    const paid = { ...view, status: 'paid', assigneeType: 'user', deliveredValue: null, deliveredValues: [], takenAt: null, deliveredAt: null }
    if (external) await appendEvents(tx, shop, [['order.paid', { order: paid }], ['order.delivered', { order: view }]])
    return view
  })
  if (!order) return reply.code(400).send(fail('VALIDATION_ERROR', 'The product is not on sale.'))
  return reply.code(201).send({ success: true, data: { order } })
})

// ---------------------------------------------------------------- the claim replaced from stock

/** The key's id as the service names it (derived, never the key's bytes). */
const keyId = stockKey ? Buffer.from(hkdfSync('sha256', stockKey, Buffer.alloc(0), 'seller-api stock key id', 8)).toString('hex') : ''
type Sealed = { keyId: string, sealed: string }

/** An order's values as the service stores them: one box (nonce ‖ ciphertext ‖ tag) bound to the order id. */
function seal (values: string[], orderId: string): Sealed {
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', stockKey!, nonce)
  cipher.setAAD(Buffer.from(orderId))
  const box = Buffer.concat([nonce, cipher.update(JSON.stringify(values), 'utf8'), cipher.final(), cipher.getAuthTag()])
  return { keyId, sealed: box.toString('base64') }
}
const open = (stored: Sealed | string[], orderId: string): string[] => Array.isArray(stored)
  ? stored
  : JSON.parse(decrypt(Buffer.from(stored.sealed, 'base64').subarray(12), Buffer.from(stored.sealed, 'base64').subarray(0, 12), orderId))

const claimColumns = `c.id, c.order_id as "orderId", c.product_id as "productId", c.status, c.reason, c.text, c.value_indexes as "valueIndexes",
  ${iso('c.respond_by')} as "respondBy", ${iso('c.created_at')} as "createdAt", ${iso('c.resolved_at')} as "resolvedAt",
  c.resolution_kind as kind, c.resolution_by as by, c.resolution_note as note, c.resolution_amount::float8 as amount, ${iso('c.escalated_at')} as "escalatedAt"`
const claimView = ({ kind, by, note, amount, escalatedAt, ...claim }: Record<string, unknown>) =>
  ({ ...claim, resolution: kind === null ? null : { kind, by, note, amount }, escalatedAt })

app.post('/v1/claims/:id/replace', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const { id } = request.params as { id: string }
  const result = await sql.begin(async (tx) => {
    const [claim] = await tx<{ orderId: string, productId: string, valueIndexes: number[] }[]>`
      select c.order_id as "orderId", c.product_id as "productId", c.value_indexes as "valueIndexes" from claims c
      join orders o on o.id = c.order_id where c.id = ${id} and c.shop_id = ${shopId} and o.external
        and c.status in ('open', 'escalated') for update of c`
    if (!claim) return null
    const { orderId, productId, valueIndexes: indexes } = claim
    await tx`select id from products where id = ${productId} for no key update`
    const [order] = await tx<{ values: Sealed | string[] }[]>`select delivered_values as values from orders where id = ${orderId} for no key update`
    const reported = await tx<{ id: string, option_key: string }[]>`select id, option_key from stock_items
      where order_id = ${orderId} and status = 'delivered' and delivered_index = any(${indexes}::int[])`
    const option = reported[0]?.option_key ?? NO_OPTION
    const n = indexes.length
    const [count] = await tx`update stock_counts set available = available - ${n}, delivered = delivered + ${n - reported.length},
      defective = defective + ${reported.length}, updated_at = ${nowMs}
      where product_id = ${productId} and option_key = ${option} and available >= ${n} returning available`
    if (!count) throw new Error('the baseline ran out of stock')
    const items = await tx<{ index: number, ciphertext: Buffer, nonce: Buffer }[]>`
      update stock_items i set status = 'delivered', order_id = ${orderId}, delivered_at = ${nowMs}, delivered_index = (${indexes}::int[])[t.n]
      from (
        select id, row_number() over (order by position) as n from (
          select id, position from stock_items where product_id = ${productId} and option_key between ${option} and ${option}
            and status = 'available' order by option_key, position limit ${n} for update skip locked) s
      ) t where i.id = t.id returning i.delivered_index as index, i.ciphertext, i.nonce`
    if (items.length < n) throw new Error('stock items locked by another transaction')
    if (reported.length > 0) await tx`update stock_items set status = 'defective' where id = any(${reported.map((r) => r.id)}::uuid[])`
    const values = open(order.values, orderId)
    for (const item of items) values[item.index] = decrypt(item.ciphertext, item.nonce, productId)
    const [row] = await tx<Changed[]>`update orders set delivered_values = ${sql.json(seal(values, orderId))}, updated_at = ${nowMs}
      where id = ${orderId} ${returning}`
    const [settled] = await tx`update claims c set status = 'replaced', resolution_kind = 'replaced', resolution_by = 'seller',
      resolved_at = ${nowMs} where c.id = ${id} returning ${sql.unsafe(claimColumns)}`
    const [message] = await tx<{ id: string, senderRole: string, text: string, createdAt: string }[]>`with o as (
        update orders set last_message_at = greatest(date_trunc('milliseconds', clock_timestamp()), last_message_at + interval '1 millisecond')
        where id = ${orderId} returning last_message_at
      ) insert into order_messages (order_id, sender_role, text, created_at)
      select ${orderId}, 'system', ${`The seller replaced ${n} value(s).`}, last_message_at from o
      returning id, sender_role as "senderRole", text, ${sql.unsafe(iso('created_at'))} as "createdAt"`
    const { shop_id: shop, external, ...stored } = row
    const claimOut = claimView(settled)
    await appendEvents(tx, shop, [['order.updated', { order: stored }], ['message.created', { orderId, message }], ['claim.resolved', { claim: claimOut }]])
    return { claim: claimOut, order: { ...stored, deliveredValue: values.join('\n'), deliveredValues: values } }
  })
  if (!result) return reply.code(409).send(fail('CLAIM_INVALID_STATUS', 'The claim\'s status does not allow this.'))
  return { success: true, data: result }
})

// ---------------------------------------------------------------- the feed page

/** The feed's cursor as the service writes it: the seq in base 36, bound to the shop by a SHA-256 check. */
const cursorOf = (shopId: string, seq: number) =>
  `v1_${seq.toString(36)}_${createHash('sha256').update(`${shopId}:${seq}`).digest('hex').slice(0, 8)}`

/** An event's data with the order it carries opened, when its values are sealed. */
function revealed (data: { order?: { id: string, deliveredValues: Sealed | string[] } }) {
  const order = data.order
  if (!order || Array.isArray(order.deliveredValues)) return data
  const values = open(order.deliveredValues, order.id)
  return { ...data, order: { ...order, deliveredValue: values.join('\n'), deliveredValues: values } }
}

app.get('/v1/events', async (request, reply) => {
  const shopId = await shopOf(request.headers.authorization)
  if (!shopId) return reply.code(401).send(unauthorized)
  const limit = Number((request.query as { limit?: string }).limit ?? 50)
  const rows = await sql<Array<{ newest: string, pruned: string, id: string | null, seq: string, type: string, createdAt: string, data: any }>>`
    select s.event_seq as newest, s.event_pruned_seq as pruned, e.id, e.seq, e.type, ${sql.unsafe(iso('e.created_at'))} as "createdAt", e.data
    from shops s left join lateral (
      select id, seq, type, created_at, data from events where shop_id = s.id and seq > s.event_pruned_seq order by seq limit ${limit}::int
    ) e on true
    where s.id = ${shopId} order by e.seq`
  const events = rows[0].id === null ? [] : rows.map(({ id, type, createdAt, data }) => ({ id, type, createdAt, data: revealed(data) }))
  const position = events.length === limit ? Number(rows[rows.length - 1].seq) : Math.min(Number(rows[0].newest), Number(rows[0].pruned) + 1000)
  return { success: true, data: { events, nextCursor: cursorOf(shopId, position) } }
})

app.listen({ port: Number(env.PORT), host: '127.0.0.1' }).catch((err) => {
  console.error(err)
  process.exit(1)
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.close().then(() => sql.end({ timeout: 2 })).finally(() => process.exit(0))
  })
}
