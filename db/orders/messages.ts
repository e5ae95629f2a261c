// The order chat. Within one order createdAt is strictly increasing: a post
// updates the order row's last_message_at to max(now, last + 1 ms) and stamps its
// message with it, so a reader polling with "strictly after the last createdAt I
// saw" never skips or repeats a message.
import { notFound } from '../../domain/errors.js'
import { messageText, type SenderRole } from '../../domain/message-rules.js'
import { systemMessageText, type SystemMessage } from '../../domain/system-messages.js'
import type { Db, Queryable, Tx } from '../core/client.js'
import { notifyAfterCommit } from '../core/notifications.js'
import { appendEventCtes, notifyEvent, type EventOutcome } from '../events/statements.js'
import { EVENTS_CHANNEL } from '../events/store.js'
import type { OrderScope } from './orders.js'
import { preparedOnce, rawQuery, run, runPrepared } from '../core/sql.js'
import { isoTime, toMilliseconds } from '../core/time.js'

/** A chat message as the API returns it (MessageSchema in schemas/messages.ts). */
export interface Message { id: string, senderRole: SenderRole, text: string, createdAt: string, ruleId: string | null }

/** The next message's time on order row `o`: max(now, the last message's + 1 ms). */
export const nextMessageTime = (o: string) =>
  `greatest(${toMilliseconds('clock_timestamp()')}, ${o}.last_message_at + interval '1 millisecond')`

/** The columns of message row `m` as MessageSchema names them. */
export const messageColumns = (m: string) =>
  `${m}.id, ${m}.sender_role as "senderRole", ${m}.text, ${isoTime(`${m}.created_at`)} as "createdAt",
  ${m}.rule_id as "ruleId"`

/**
 * A post as one statement (db/events/statements.ts). The UPDATE of the order's
 * last_message_at serialises the posts to one order on its row and, after
 * waiting, sees the previous post's time (a max(created_at) read in the same
 * statement would not: one snapshot). $1 order, $2 role, $3 text, $4 shop; `onlyIf`, SQL
 * over the order's row `orders`, posts only when it holds (db/chat-rules/buyer-messages.ts);
 * `meaning`, the parameter of a system message's kind (domain/system-messages.ts).
 */
export const postMessageSql = (scoped: boolean, onlyIf?: string, meaning?: string) => `with o as (
    update orders set last_message_at = ${nextMessageTime('orders')}
    where id = $1${scoped ? ' and shop_id = $4 and external' : ''}${onlyIf === undefined ? '' : ` and ${onlyIf}`}
    returning id, shop_id, external, last_message_at
  ), m as (
    insert into order_messages (order_id, sender_role, text, created_at${meaning === undefined ? '' : ', meaning'})
    select id, $2, $3, last_message_at${meaning === undefined ? '' : `, ${meaning}::text::jsonb`} from o
    returning id, sender_role, text, created_at, rule_id
  ), r as (
    select ${messageColumns('m')} from m
  ), ${appendEventCtes({
    source: 'o',
    condition: 'o.external',
    type: 'message.created',
    data: "jsonb_build_object('orderId', o.id, 'message', to_jsonb(r))",
    from: 'r'
  })}
  select r.*, case when o.external then o.shop_id end as "eventShopId" from r, o`

/** Posts to the order's chat, ready for MessageSchema; 404 when the order is not visible in `scope`. */
export async function postMessage (
  db: Db, orderId: string, scope: OrderScope, senderRole: SenderRole, rawText: string
): Promise<Message> {
  const text = messageText(rawText)
  const query = preparedOnce(db, `post_message_${scope !== null}`,
    () => rawQuery<Message & EventOutcome>(db, postMessageSql(scope !== null)))
  const [row] = await query(scope === null ? [orderId, senderRole, text] : [orderId, senderRole, text, scope.shopId])
  if (!row) throw notFound('Order')
  const { eventShopId, ...message } = row
  notifyEvent(db, { eventShopId })
  return message
}

const postInTransactionSql = postMessageSql(false, undefined, '$4')

/**
 * A post inside `tx`, with the change it tells of (the claims' steps, docs/claims.md):
 * one statement, sent at once. `meaning`: a system message's kind, kept beside its text.
 */
export async function postMessageInTransaction (
  tx: Tx, orderId: string, senderRole: SenderRole, text: string, meaning: SystemMessage | null = null
): Promise<void> {
  const [row] = await runPrepared<EventOutcome>(tx, postInTransactionSql,
    [orderId, senderRole, messageText(text), meaning === null ? null : JSON.stringify(meaning)])
  if (row?.eventShopId) notifyAfterCommit(tx, EVENTS_CHANNEL, row.eventShopId)
}

/** A `system` message inside `tx`: its English text, and its kind beside it. Words only, never a value. */
export const postSystemMessage = (tx: Tx, orderId: string, message: SystemMessage) =>
  postMessageInTransaction(tx, orderId, 'system', systemMessageText(message), message)

/**
 * The kinds of the order's system messages by message id (the portal says them in the page's
 * language); a message written before its kind was kept has none. The caller checked the order is the shop's.
 */
export async function systemMessageMeanings (db: Queryable, orderId: string): Promise<Map<string, SystemMessage>> {
  const rows = await run<{ id: string, meaning: SystemMessage }>(db,
    'select id, meaning from order_messages where order_id = $1 and meaning is not null', [orderId])
  return new Map(rows.map((row) => [row.id, row.meaning]))
}

/** $1 order, $2 shop, $3 limit, $4 cursor: visibility and the page in one round trip. */
const listMessagesSql = (withCursor: boolean) => `
  select o.id as "orderId", ${messageColumns('m')}
  from orders o
  left join (
    select id, sender_role, text, created_at, rule_id from order_messages
    where order_id = $1${withCursor ? ' and created_at > $4::timestamptz' : ''}
    order by created_at limit $3::int
  ) m on true
  where o.id = $1 and o.shop_id = $2 and o.external
  order by m.created_at`

/**
 * Up to `limit` messages of the shop's order created strictly after `cursor`,
 * oldest first, ready for MessageSchema. Undefined when the order is not visible.
 */
export async function listMessages (
  db: Db, shopId: string, orderId: string, cursor: string | undefined, limit: number
): Promise<Message[] | undefined> {
  const withCursor = cursor !== undefined
  const query = preparedOnce(db, `list_messages_${withCursor}`,
    () => rawQuery<Message>(db, listMessagesSql(withCursor)))
  const rows = await query(withCursor ? [orderId, shopId, limit, cursor] : [orderId, shopId, limit])
  if (rows.length === 0) return undefined
  // A visible order without messages (after the cursor) is one row without a message.
  return rows[0].id === null ? [] : rows
}
