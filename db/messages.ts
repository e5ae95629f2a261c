// The order chat. Within one order createdAt is strictly increasing: a post locks
// the order row and stamps max(now, last + 1 ms), so a reader polling with
// "strictly after the last createdAt I saw" never skips or repeats a message.
import { and, eq, sql } from 'drizzle-orm'
import { notFound, validationError } from '../plugins/errors.js'
import { MAX_MESSAGE_LENGTH, type SenderRole } from '../schemas/messages.js'
import type { Db } from './client.js'
import { messageView, type Message } from '../schemas/messages.js'
import { recordEvent } from './events.js'
import { isoTimeSql, scopeConditions, type OrderScope } from './orders.js'
import { preparedOnce, rawQuery } from './prepared.js'
import { orderMessages, orders, products } from './schema.js'

export interface MessageRow { id: string, senderRole: string, text: string, createdAt: Date }

const messageColumns = {
  id: orderMessages.id,
  senderRole: orderMessages.senderRole,
  text: orderMessages.text,
  createdAt: orderMessages.createdAt
}

/** Trims the text and checks the 1–4000 characters rule (counted in code points). */
function messageText (raw: string): string {
  const text = raw.trim()
  const length = [...text].length
  if (length === 0 || length > MAX_MESSAGE_LENGTH) {
    throw validationError(`The message text must be 1–${MAX_MESSAGE_LENGTH} characters after trimming.`, [{ path: 'body.text', message: `must be 1–${MAX_MESSAGE_LENGTH} characters after trimming` }])
  }
  return text
}

export async function postMessage (db: Db, orderId: string, scope: OrderScope, senderRole: SenderRole, rawText: string): Promise<MessageRow> {
  const text = messageText(rawText)
  return db.transaction(async (tx) => {
    // Posts to one order queue here; each one then sees the previous one committed.
    const [order] = await tx.select({
      id: orders.id,
      shopId: orders.shopId,
      // Only orders of products with automation produce events.
      external: sql<boolean>`(select ${products.external} from ${products} where ${products.id} = ${orders.productId})`
    }).from(orders)
      .where(and(eq(orders.id, orderId), ...scopeConditions(scope)))
      .for('no key update')
    if (!order) throw notFound('Order')
    const [message] = await tx.insert(orderMessages).values({
      orderId,
      senderRole,
      text,
      createdAt: sql`greatest(
        date_trunc('milliseconds', clock_timestamp()),
        (select max(${orderMessages.createdAt}) + interval '1 millisecond' from ${orderMessages} where ${orderMessages.orderId} = ${orderId})
      )`
    }).returning(messageColumns)
    if (order.external) {
      await recordEvent(tx, { shopId: order.shopId, type: 'message.created', data: { orderId, message: messageView(message) } })
    }
    return message
  })
}

/** $1 order, $2 shop, $3 limit, $4 cursor: visibility and the page in one round trip. */
const listMessagesSql = (withCursor: boolean) => `
  select o.id as "orderId", m.id, m.sender_role as "senderRole", m.text, ${isoTimeSql('m.created_at')} as "createdAt"
  from orders o
  left join (
    select id, sender_role, text, created_at from order_messages
    where order_id = $1${withCursor ? ' and created_at > $4::timestamptz' : ''}
    order by created_at limit $3::int
  ) m on true
  where o.id = $1 and o.shop_id = $2 and o.external
  order by m.created_at`

/**
 * Up to `limit` messages of the shop's order created strictly after `cursor`,
 * oldest first, ready for MessageSchema. Undefined when the order is not visible.
 */
export async function listMessages (db: Db, shopId: string, orderId: string, cursor: string | undefined, limit: number): Promise<Message[] | undefined> {
  const withCursor = cursor !== undefined
  const query = preparedOnce(db, `list_messages_${withCursor}`, () => rawQuery<Message>(db, listMessagesSql(withCursor)))
  const rows = await query(withCursor ? [orderId, shopId, limit, cursor] : [orderId, shopId, limit])
  if (rows.length === 0) return undefined
  // A visible order without messages (after the cursor) is one row without a message.
  return rows[0].id === null ? [] : rows
}
