// The benches' seeding entry point (docs/performance.md, "Seeding"): with
// seed-stock.ts (the stock database's: stock, claims, the feed of sealed
// orders), the only modules of scripts/bench/ that import the service's own. Everything a
// bench measures goes through HTTP; what it needs in place beforehand (databases
// migrated, thousands of shops, millions of orders and encrypted stock items,
// backlogs of events and delivery requests) is written here, with set-based SQL,
// in seconds. Bulk inserts run with session_replication_role = replica (no
// triggers, no foreign-key checks), so they set orders.external themselves and
// order_counts and the sales statistics' rollup are rebuilt once at the end.
import { sql as drizzleSql } from 'drizzle-orm'
import postgres from 'postgres'
import { openDatabase } from '../../db/core/client.js'
import { seedTaxonomy } from '../../db/catalog/taxonomy.js'
import { appendEventCtes, appendEventRowsCtes, notifyEvent } from '../../db/events/statements.js'
import { orderJson } from '../../db/orders/row.js'
import { run as runSql } from '../../db/core/sql.js'
import { isoTime } from '../../db/core/time.js'
import { displayPrefix, generateApiKeySecret, hashApiKey } from '../../domain/api-key.js'
import { seedDemoShop } from '../../services/embedded/demo.js'

/** The sales statistics' statement, for the plans `npm run bench:stats` prints. */
export { salesStatsSql } from '../../db/stats/sales.js'
/** The largest legal request bodies, shared with the body-limit test (for `npm run bench:stall`). */
export { asciiJson, largestCategory, largestDelivery, largestProduct } from '../../test/fixtures/largest-bodies.js'

export type WriteOp = 'take' | 'deliver' | 'cancel' | 'message'
export const writeOps: WriteOp[] = ['take', 'deliver', 'cancel', 'message']

/** One write request's target: the order and the key of its shop. */
export interface WriteTarget { secret: string, orderId: string }

export interface MainFixtures {
  /** Keys of the reader shops (120 orders each, a quarter paid). */
  readers: string[]
  /** The chats polled: each reader shop's two oldest paid orders, cursor at the 5th of 25 messages. */
  polls: Array<{ secret: string, orderId: string, cursor: string }>
  /** Keys of a shop with BACKLOG paid orders and of one with SMALL_QUEUE. */
  backlog: { big: string, small: string }
  /** Orders for each write set (`${op}:${server}:${run}`; messages share one set), oldest first, shops interleaved. */
  writes: Map<string, WriteTarget[]>
  orderCount: number
  messageCount: number
}

export const READER_SHOPS = 1000
const ORDERS_PER_READER = 120
const WRITER_SHOPS = 1000
const NON_EXTERNAL_SHOPS = 50
export const MESSAGES_PER_POLLED_ORDER = 25
export const CURSOR_AFTER_MESSAGE = 5
export const BACKLOG = 50_000
export const SMALL_QUEUE = 30

export const databaseUrl = (serverUrl: string, database: string) => {
  const u = new URL(serverUrl)
  u.pathname = `/${database}`
  return u.toString()
}

/** Drops and creates `database`, applies the migrations and seeds the taxonomy. */
export async function createDatabase (serverUrl: string, database: string): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`drop database if exists "${database}" with (force)`)
    await admin.unsafe(`create database "${database}"`)
  } finally {
    await admin.end({ timeout: 5 })
  }
  const opened = await openDatabase({ url: databaseUrl(serverUrl, database), poolMax: 2 })
  try {
    await opened.migrate()
    await seedTaxonomy(opened.db)
  } finally {
    await opened.close()
  }
}

export async function dropDatabase (serverUrl: string, database: string): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    await admin.unsafe(`drop database if exists "${database}" with (force)`)
  } finally {
    await admin.end({ timeout: 5 })
  }
}

type Sql = postgres.Sql

/**
 * Shops named `${prefix} 0` … `${prefix} ${count - 1}`, each with one external
 * product; the first `manual` also sell a product without automation, and the
 * first `keyed` get an API key. Returns those keys' secrets, by shop number.
 */
async function insertShops (sql: Sql, prefix: string, count: number, keyed: number, manual = 0): Promise<string[]> {
  const [{ id: categoryId }] = await sql<{ id: string }[]>`select id from categories order by path_en limit 1`
  await sql`insert into shops (name, created_at) select ${prefix} || ' ' || n, now() - interval '1 year' from generate_series(0, ${count - 1}) n`
  await sql`
    insert into products (shop_id, category_id, title, description, active, external, price, employee_reward_type, employee_reward_value)
    select id, ${categoryId}::uuid, 'Steam key: Game ' || name, 'Global key, activates on Steam.', true, true, 499.90, 'percent', 0
    from shops where name like ${prefix + ' %'}
    union all
    select id, ${categoryId}::uuid, 'Manual gift: ' || name, 'Delivered by hand.', true, false, 199.00, 'percent', 0
    from shops where name like ${prefix + ' %'} and substring(name from ${prefix.length + 2})::int < ${manual}`
  const secrets = Array.from({ length: keyed }, () => generateApiKeySecret())
  await sql`
    insert into api_keys (shop_id, name, key_hash, prefix)
    select s.id, 'fulfilment bot', k.key_hash, k.prefix
    from unnest(${sql.array(secrets.map(hashApiKey))}::text[], ${sql.array(secrets.map(displayPrefix))}::text[]) with ordinality as k(key_hash, prefix, n)
    join shops s on s.name = ${prefix} || ' ' || (k.n - 1)`
  return secrets
}

const statusMix = `case when r % 20 < 5 then 'paid' when r % 20 = 5 then 'processing' when r % 20 = 6 then 'awaiting_confirmation'
  when r % 20 < 9 then 'cancelled' else 'completed' end`

/**
 * `perShop` orders for every shop of `prefix`, rank r = 0 oldest, inserted in
 * creation order with shops interleaved (as a busy marketplace writes them).
 * `status` is an SQL expression of r; `title` tags the orders when given.
 */
async function insertOrders (sql: Sql, prefix: string, perShop: number, status: string, title?: string, start = "now() - interval '30 days'") {
  await sql.unsafe(`
    with s as (
      select s.id as shop_id, substring(s.name from ${prefix.length + 2})::int as n,
             e.id as ext_id, e.title as ext_title, m.id as man_id, m.title as man_title
      from shops s
      join products e on e.shop_id = s.id and e.external
      left join products m on m.shop_id = s.id and not m.external
      where s.name like '${prefix} %'
    ), g as (
      select s.*, r, ${status} as status, s.man_id is not null and r % 10 = 3 as manual,
             ${start} + r * interval '5 minutes' + n * interval '1 millisecond' as created
      from s cross join generate_series(0, ${perShop - 1}) r
    )
    insert into orders (shop_id, product_id, product_title, quantity, amount, status, external, assignee_type, field_values,
                        delivered_values, created_at, taken_at, delivered_at, completed_at, cancelled_at, updated_at)
    select shop_id,
      case when manual then man_id else ext_id end,
      ${title === undefined ? 'case when manual then man_title else ext_title end' : `'${title}'`},
      1 + r % 3, (499.90 * (1 + r % 3))::numeric(14, 2), status, not manual,
      case when status in ('paid', 'cancelled') then 'user' else 'api' end,
      jsonb_build_array(jsonb_build_object('fieldId', '5b0e8a51-8d4e-4f7b-9a55-5f0d3c1e0a11', 'label', 'Email', 'value', 'buyer' || n || '.' || r || '@example.com')),
      case when status in ('awaiting_confirmation', 'completed') then '["XXXX-YYYY-ZZZZ"]'::jsonb else '[]'::jsonb end,
      created,
      case when status in ('processing', 'awaiting_confirmation', 'completed') then created + interval '1 minute' end,
      case when status in ('awaiting_confirmation', 'completed') then created + interval '2 minutes' end,
      case when status = 'completed' then created + interval '1 hour' end,
      case when status = 'cancelled' then created + interval '10 minutes' end,
      created
    from g order by r, n`)
}

/**
 * Runs the bulk inserts without the secondary indexes of orders and builds them
 * afterwards (ten times faster than maintaining them row by row), then fills
 * order_counts as the triggers would have.
 */
async function bulk (sql: Sql, inserts: () => Promise<void>) {
  const indexes = await sql<{ name: string, definition: string }[]>`
    select indexname as name, indexdef as definition from pg_indexes where tablename = 'orders' and indexname <> 'orders_pkey'`
  for (const { name } of indexes) await sql.unsafe(`drop index "${name}"`)
  await inserts()
  for (const { definition } of indexes) await sql.unsafe(definition)
  await sql`truncate order_counts`
  await sql`insert into order_counts (shop_id, status, product_id, count) select shop_id, status, product_id, count(*) from orders group by 1, 2, 3`
  await fillSalesRollup(sql)
}

/**
 * The sales statistics' rollup computed afresh from the orders and the ledger
 * (docs/sales-stats.md), as its triggers would have kept it: for seeding done
 * with triggers off (session_replication_role = replica).
 */
export async function fillSalesRollup (sql: Sql): Promise<void> {
  await sql`select sales_rollup_rebuild()`
}

/** The main bench database: readers, chats, the backlog pair, and the orders every write run consumes. */
export async function seedMain (url: string, runs: number, writeSetSize: number): Promise<MainFixtures> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { session_replication_role: 'replica' } })
  try {
    const readers = await insertShops(sql, 'Reader', READER_SHOPS, READER_SHOPS, NON_EXTERNAL_SHOPS)
    const [big] = await insertShops(sql, 'Backlog', 1, 1)
    const [small] = await insertShops(sql, 'Small', 1, 1)
    // Writer shops: every write set is its own batch of orders, so no request meets a 409.
    const writers = await insertShops(sql, 'Writer', WRITER_SHOPS, WRITER_SHOPS)
    const perShop = Math.ceil(writeSetSize / WRITER_SHOPS)
    const sets = ['message']
    for (let run = 1; run <= runs; run++) {
      for (const server of ['baseline', 'service']) for (const op of ['take', 'deliver', 'cancel']) sets.push(`${op}:${server}:${run}`)
    }
    await bulk(sql, async () => {
      await insertOrders(sql, 'Reader', ORDERS_PER_READER, statusMix)
      await insertOrders(sql, 'Backlog', BACKLOG, "'paid'", undefined, "now() - interval '1 year'")
      await insertOrders(sql, 'Small', SMALL_QUEUE, "'paid'")
      for (const set of sets) {
        await insertOrders(sql, 'Writer', perShop, set.startsWith('deliver') ? "'processing'" : "'paid'", `bench ${set}`)
      }
    })

    const polls = await seedReaderChats(sql, readers)

    const targets = await sql<{ title: string, id: string, n: number }[]>`
      select o.product_title as title, o.id, substring(s.name from 8)::int as n
      from orders o join shops s on s.id = o.shop_id
      where s.name like 'Writer %' order by o.created_at, o.id`
    const writes = new Map<string, WriteTarget[]>(sets.map((set) => [set, []]))
    for (const t of targets) writes.get(t.title.slice('bench '.length))!.push({ secret: writers[t.n], orderId: t.id })

    await sql`vacuum analyze`
    const [{ orders, messages }] = await sql<{ orders: number, messages: number }[]>`
      select (select count(*) from orders)::int as orders, (select count(*) from order_messages)::int as messages`
    return {
      readers,
      polls,
      backlog: { big, small },
      writes,
      orderCount: orders,
      messageCount: messages
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/**
 * The chats of the reader shops (`Reader n`, whose keys are `secrets`): 25
 * messages on each shop's two oldest visible paid orders (the polled chats, the
 * cursor at the 5th message), 2 on every other order, all in the past (so
 * orders.last_message_at may stay null: a post is stamped with the clock). Returns the polls.
 */
export async function seedReaderChats (sql: Sql, secrets: string[]): Promise<MainFixtures['polls']> {
  // The chats the bots poll: each reader shop's oldest visible paid orders.
  const polled = await sql<{ order_id: string, n: number, cursor: Date }[]>`
    select t.id as order_id, t.n, t.created_at + ${CURSOR_AFTER_MESSAGE} * interval '1 second' as cursor from (
      select o.id, o.created_at, substring(s.name from 8)::int as n,
             row_number() over (partition by o.shop_id order by o.created_at, o.id) as k
      from orders o join shops s on s.id = o.shop_id
      where s.name like 'Reader %' and o.status = 'paid' and o.external
    ) t where t.k <= 2`
  const polledIds = sql.array(polled.map((p) => p.order_id))
  await sql`
    insert into order_messages (order_id, sender_role, text, created_at)
    select o.id,
      case when k % 3 = 0 then 'seller' when k = 1 then 'system' else 'buyer' end,
      case when k = 1 then 'Order paid.' else 'Message ' || k || ': hello, is my key ready? Please send it to the email above.' end,
      o.created_at + k * interval '1 second'
    from orders o cross join generate_series(1, ${MESSAGES_PER_POLLED_ORDER}) k
    where o.id = any(${polledIds}::uuid[])`
  // A little history on every other reader order (a system line and a buyer line).
  await sql`
    insert into order_messages (order_id, sender_role, text, created_at)
    select o.id, case when k = 1 then 'system' else 'buyer' end,
      case when k = 1 then 'Order paid.' else 'Thanks!' end, o.created_at + k * interval '1 second'
    from orders o cross join generate_series(1, 2) k
    where o.shop_id in (select id from shops where name like 'Reader %') and not (o.id = any(${polledIds}::uuid[]))`
  return polled.map((p) => ({ secret: secrets[p.n], orderId: p.order_id, cursor: p.cursor.toISOString() }))
}

/**
 * A database of READER_SHOPS reader shops (one key each, 50 also selling a
 * product without automation) with 120 orders and their chats each: what
 * `npm run bench:events` seeds.
 */
export async function seedReaders (url: string): Promise<{ secrets: string[], polls: MainFixtures['polls'], orderCount: number, messageCount: number }> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { session_replication_role: 'replica' } })
  try {
    const secrets = await insertShops(sql, 'Reader', READER_SHOPS, READER_SHOPS, NON_EXTERNAL_SHOPS)
    await bulk(sql, () => insertOrders(sql, 'Reader', ORDERS_PER_READER, statusMix))
    const polls = await seedReaderChats(sql, secrets)
    await sql`vacuum analyze`
    const [{ orders, messages }] = await sql<{ orders: number, messages: number }[]>`
      select (select count(*) from orders)::int as orders, (select count(*) from order_messages)::int as messages`
    return { secrets, polls, orderCount: orders, messageCount: messages }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/**
 * A database of `shops` shops with 100 orders each (a quarter paid), the first
 * `keyed` with keys: the same shops, in a small or a large orders table.
 */
export async function seedTableSize (url: string, shops: number, keyed: number): Promise<string[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { session_replication_role: 'replica' } })
  try {
    const secrets = await insertShops(sql, 'Shop', shops, keyed)
    await bulk(sql, () => insertOrders(sql, 'Shop', 100, statusMix))
    await sql`analyze`
    return secrets
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** The embedded default's data directory: the demo shop of a first start, with `paid` paid orders. */
export async function seedEmbedded (dataDir: string, paid: number): Promise<string> {
  const opened = await openDatabase({ dataDir })
  try {
    await opened.migrate()
    await seedTaxonomy(opened.db)
    const demo = await seedDemoShop(opened.db)
    // Through the triggers, as the service would have recorded them.
    await opened.db.execute(drizzleSql`
      insert into orders (shop_id, product_id, product_title, quantity, amount, field_values, created_at)
      select p.shop_id, p.id, p.title, 1, 925.00, '[]'::jsonb, now() - interval '30 days' + r * interval '1 minute'
      from products p cross join generate_series(1, ${paid}) r where p.id = ${demo.productId}`)
    return demo.secret
  } finally {
    await opened.close()
  }
}

// ---------------------------------------------------------------- events and delivery requests behind the service

/**
 * For `npm run bench:webhooks` (BENCH_SOURCE=store): appends an `order.paid`
 * event of a shop as the service's writes append theirs (shop row lock, event
 * row, webhook fan-out; the hint after commit). Returns the event's id and when
 * its statement returned (committed).
 */
export async function eventWriter (url: string, poolMax: number) {
  const opened = await openDatabase({ url, poolMax })
  const text = `with src as (select $1::uuid as shop_id),
    ${appendEventCtes({ source: 'src', condition: 'true', type: 'order.paid', data: '$2::text::jsonb' })}
    select s.event_seq as seq from s`
  return {
    async append (shopId: string, data: unknown): Promise<{ eventId: string, committedAt: number }> {
      const [{ seq }] = await runSql<{ seq: string }>(opened.db, text, [shopId, JSON.stringify(data)])
      notifyEvent(opened.db, { eventShopId: shopId })
      const committedAt = Date.now()
      const [event] = await runSql<{ id: string }>(opened.db, 'select id from events where shop_id = $1 and seq = $2', [shopId, seq])
      return { eventId: event.id, committedAt }
    },
    close: () => opened.close()
  }
}

/**
 * `perShop` `order.paid` events (data `data`) appended to the feed of every
 * shop with a webhook endpoint, in one transaction; their deliveries come from
 * the trigger, as for every event. Returns when it committed.
 */
export async function seedEventBacklog (url: string, perShop: number, data: unknown): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    await sql.begin(async (tx) => {
      for (const { shopId } of await tx<Array<{ shopId: string }>>`select shop_id as "shopId" from webhook_endpoints where purpose = 'events'`) {
        await tx.unsafe(`with evs as (
            select g.i as ord, 'order.paid' as type, $2::text::jsonb as data from generate_series(1, $3::int) g(i)
          ), ${appendEventRowsCtes('evs', '$1::uuid')}
          select 1`, [shopId, JSON.stringify(data), perShop])
      }
    })
    return Date.now()
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/**
 * `perShop` paid orders of every product with `autoDelivery: endpoint`, each
 * with its pending delivery request to its shop's delivery endpoint, in one
 * transaction. Returns when it committed.
 */
export async function seedDeliveryBacklog (url: string, perShop: number): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    await sql.begin((tx) => tx.unsafe(`with o as (
        insert into orders (shop_id, product_id, product_title, quantity, amount, field_values)
        select p.shop_id, p.id, p.title, 1, p.price, '[]'::jsonb from products p cross join generate_series(1, ${perShop})
        where p.auto_delivery = 'endpoint'
        returning *
      )
      insert into webhook_deliveries (id, endpoint_id, webhook_id, event_type, kind, order_id, payload, next_attempt_at, updated_at)
      select g.id, de.id, g.id, 'order.delivery_requested', 'delivery_request', o.id,
        jsonb_build_object('timestamp', ${isoTime('now()')}, 'data', jsonb_build_object('order', ${orderJson('o')}, 'test', false)), now(), now()
      from o join webhook_endpoints de on de.shop_id = o.shop_id and de.purpose = 'delivery'
        cross join lateral (select gen_random_uuid() as id, o.id as order_id) g`))
    return Date.now()
  } finally {
    await sql.end({ timeout: 5 })
  }
}
