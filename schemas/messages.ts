// The order chat: messages (docs/api-rules.md, order chat), the polling query and the post body.
import { Type, type Static } from '@sinclair/typebox'
import { MAX_MESSAGE_LENGTH, senderRoles } from '../domain/message-rules.js'
import { Id, Nullable, StringEnum, Timestamp } from './common.js'

export const MessageSchema = Type.Object({
  id: Id,
  senderRole: StringEnum(senderRoles, {
    description: '`seller`: posted through this API; `buyer`: the buyer; `system`: the marketplace.'
  }),
  text: Type.String(),
  createdAt: Timestamp,
  ruleId: Nullable(Id, {
    description: 'The chat rule that posted it (as the shop, `seller`); null for any other message.'
  })
}, { 'x-component': 'Message', title: 'Message' })
export type Message = Static<typeof MessageSchema>

export const MessageListQuery = Type.Object({
  cursor: Type.Optional(Type.String({
    format: 'date-time',
    description: 'Return only messages created strictly after this time: pass the previous `nextCursor`. Omit ' +
      'to start from the first message. ' +
      'An RFC 3339 date-time with seconds 00–59, an offset within ±15:59 and a year 0001–9999.'
  })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Messages per call (1–100, default 50).' })
})
export type MessageListQuery = Static<typeof MessageListQuery>

export const MessageList = Type.Object({
  messages: Type.Array(MessageSchema, { description: 'Oldest first.' }),
  nextCursor: Nullable(Timestamp, {
    description: 'createdAt of the last message returned; when nothing is new, the cursor you sent (null if ' +
      'you sent none). Poll again with it: nothing is skipped or repeated.'
  })
})

export const MessageBody = Type.Object({
  // The rule itself: 1–4000 characters once surrounding whitespace is trimmed (the raw length capped at twice that).
  text: Type.String({
    maxLength: 2 * MAX_MESSAGE_LENGTH,
    'x-trimmed-length': [1, MAX_MESSAGE_LENGTH],
    description: `1–${MAX_MESSAGE_LENGTH} characters after trimming surrounding whitespace (which is dropped).`
  })
}, { 'x-component': 'MessageInput' })
export type MessageBody = Static<typeof MessageBody>
