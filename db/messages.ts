// The order chat. Within one order createdAt is strictly increasing: a post locks
// the order row and stamps max(now, last + 1 ms), so a reader polling with
// "strictly after the last createdAt I saw" never skips or repeats a message.
import { and, asc, eq, gt, sql } from 'drizzle-orm'
import { notFound, validationError } from '../plugins/errors.js'
import { MAX_MESSAGE_LENGTH, type SenderRole } from '../schemas/messages.js'
import type { Db, Queryable } from './client.js'
import { messageView } from '../schemas/messages.js'
import { recordEvent } from './events.js'
import { scopeConditions, type OrderScope } from './orders.js'
import { preparedOnce } from './prepared.js'
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

function listMessagesQuery (db: Queryable, scoped: boolean, withCursor: boolean) {
  const page = db.select(messageColumns).from(orderMessages)
    .where(and(
      eq(orderMessages.orderId, orders.id),
      withCursor ? gt(orderMessages.createdAt, sql`${sql.placeholder('cursor')}::timestamptz`) : undefined
    ))
    .orderBy(asc(orderMessages.createdAt))
    .limit(sql.placeholder('limit'))
    .as('page')
  return db.select({ orderId: orders.id, message: { id: page.id, senderRole: page.senderRole, text: page.text, createdAt: page.createdAt } })
    .from(orders)
    .leftJoinLateral(page, sql`true`)
    .where(and(eq(orders.id, sql.placeholder('orderId')), ...(scoped ? scopeConditions({ shopId: sql.placeholder('shopId') }) : [])))
    .orderBy(asc(page.createdAt))
    .prepare(`list_messages_${scoped}_${withCursor}`)
}

/**
 * Up to `limit` messages created strictly after `cursor`, oldest first, with the
 * visibility check in the same round trip. Undefined when the order is not visible.
 */
export async function listMessages (db: Queryable, orderId: string, scope: OrderScope, cursor: string | undefined, limit: number): Promise<MessageRow[] | undefined> {
  const scoped = scope !== null
  const withCursor = cursor !== undefined
  const query = preparedOnce(db, `list_messages_${scoped}_${withCursor}`, () => listMessagesQuery(db, scoped, withCursor))
  const rows = await query.execute({ orderId, shopId: scope?.shopId, cursor, limit })
  if (rows.length === 0) return undefined
  return rows.flatMap((r) => r.message === null ? [] : [r.message])
}
