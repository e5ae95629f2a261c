// Claims (docs/claims.md): the claim as the API shows it, the bodies of the
// seller's and the operator's actions, and the list's query and page.
import { Type, type Static } from '@sinclair/typebox'
import {
  claimReasons, claimStatuses, MAX_CLAIM_NOTE, MAX_CLAIM_TEXT, operatorOutcomes, resolutionKinds, resolvers
} from '../domain/claims.js'
import { Id, Nullable, OptionalBody, StringEnum, Timestamp } from './common.js'
import { OrderSchema } from './orders.js'

export const ClaimSchema = Type.Object({
  id: Id,
  orderId: Id,
  productId: Id,
  status: StringEnum(claimStatuses, {
    description: '`open` (waiting for the shop, until `respondBy`), ' +
    '`replaced`, `refunded`, `rejected`, or `escalated` (the buyer disputed a rejection: waits for the shop ' +
    'or the marketplace, no deadline).'
  }),
  reason: StringEnum(claimReasons),
  text: Type.String({ description: 'The buyer\'s words, trimmed.' }),
  valueIndexes: Type.Array(Type.Integer({ minimum: 0 }), {
    description: 'The reported 0-based positions in the order\'s `deliveredValues`, ascending.'
  }),
  respondBy: Timestamp,
  createdAt: Timestamp,
  resolvedAt: Nullable(Timestamp),
  resolution: Nullable(Type.Object({
    kind: StringEnum(resolutionKinds),
    by: StringEnum(resolvers, {
      description: '`auto`: the stock\'s `autoReplace`, or the deadline\'s refund.'
    }),
    note: Nullable(Type.String()),
    amount: Nullable(Type.Number({ description: 'The refunded rubles; null unless refunded.' }))
  }), { description: 'Null while open or escalated.' }),
  escalatedAt: Nullable(Timestamp)
}, { 'x-component': 'Claim', title: 'Claim' })

const ClaimEnvelopeData = Type.Object({ claim: ClaimSchema })
export const ClaimData = ClaimEnvelopeData
export const ClaimOrderData = Type.Object({ claim: ClaimSchema, order: OrderSchema })

const Note = Type.String({
  'x-trimmed-length': [1, MAX_CLAIM_NOTE],
  description: `1–${MAX_CLAIM_NOTE} ` +
  'characters after trimming (stored trimmed).'
})

export const ReplaceClaimBody = OptionalBody(Type.Object({
  values: Type.Optional(Type.Array(Type.String({ maxLength: 10_000 }), {
    minItems: 1,
    maxItems: 100,
    description: 'The new values, one per reported position, in order. Absent: taken from the product\'s ' +
      'stock, oldest first.'
  }))
}, { 'x-component': 'ReplaceClaimInput', additionalProperties: false }))
export type ReplaceClaimBody = Static<typeof ReplaceClaimBody>

export const RefundClaimBody = OptionalBody(Type.Object({ note: Type.Optional(Note) },
  { 'x-component': 'RefundClaimInput', additionalProperties: false }))
export type RefundClaimBody = Static<typeof RefundClaimBody>

export const RejectClaimBody = Type.Object({ note: Note },
  { 'x-component': 'RejectClaimInput', additionalProperties: false })
export type RejectClaimBody = Static<typeof RejectClaimBody>

export const OpenClaimBody = Type.Object({
  reason: StringEnum(claimReasons),
  text: Type.String({
    'x-trimmed-length': [1, MAX_CLAIM_TEXT],
    description: `1–${MAX_CLAIM_TEXT} characters ` +
    'after trimming (stored trimmed).'
  }),
  valueIndexes: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }),
    { maxItems: 100, description: 'Reported positions in `deliveredValues`; absent: all of them.' }))
}, { 'x-component': 'OpenClaimInput', additionalProperties: false })
export type OpenClaimBody = Static<typeof OpenClaimBody>

export const EscalateClaimBody = OptionalBody(Type.Object({
  text: Type.Optional(Type.String({
    'x-trimmed-length': [1, MAX_CLAIM_TEXT],
    description: 'The buyer\'s words, posted in the chat as the buyer\'s message.'
  }))
}, { 'x-component': 'EscalateClaimInput', additionalProperties: false }))
export type EscalateClaimBody = Static<typeof EscalateClaimBody>

export const ResolveClaimBody = Type.Object({
  outcome: StringEnum(operatorOutcomes),
  note: Type.Optional(Note)
}, { 'x-component': 'ResolveClaimInput', additionalProperties: false })
export type ResolveClaimBody = Static<typeof ResolveClaimBody>

const statusList = `(${claimStatuses.join('|')})`
export const ClaimListQuery = Type.Object({
  status: Type.Optional(Type.String({
    pattern: `^${statusList}(,${statusList})*$`,
    description: 'One status or several, comma-separated; absent: all.'
  })),
  productId: Type.Optional(Id),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Claims per page (1–100, default 50).' }),
  after: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' }))
})
export type ClaimListQuery = Static<typeof ClaimListQuery>

export const ClaimPage = Type.Object({
  claims: Type.Array(ClaimSchema, { description: 'Newest first.' }),
  nextCursor: Nullable(Type.String(), {
    description: 'Pass as `after` for the next (older) page; null when there is none.'
  })
})
