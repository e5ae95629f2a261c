// Orders: the representation of docs/api-rules.md (orders) with its
// rules, the list query, the deliver / cancel bodies, the operator's purchase
// and the shop ledger.
import { Type, type Static } from '@sinclair/typebox'
import { assigneeTypes, ledgerKinds, orderStatuses } from '../domain/order-transitions.js'
import { MAX_QUANTITY } from '../domain/purchase.js'
import { Id, Nullable, OptionalBody, PageQuery, StringEnum, Timestamp } from './common.js'

export const OrderStatusSchema = StringEnum(orderStatuses, {
  description: '`paid` → `processing` (take) → `awaiting_confirmation` (deliver) → `completed` (buyer ' +
    'confirms); `cancelled` from any of the first three.'
})

export const OrderSchema = Type.Object({
  id: Id,
  status: OrderStatusSchema,
  createdAt: Timestamp,
  productId: Id,
  productTitle: Type.String({ description: 'The product\'s title at the time of purchase.' }),
  quantity: Type.Integer(),
  amount: Type.Number({ description: 'Rubles the buyer paid for the whole order.' }),
  fieldValues: Type.Array(Type.Object({
    fieldId: Id,
    label: Type.String(),
    value: Type.String({ description: 'For a select field, the chosen option labels.' })
  }), { description: 'Values the buyer supplied for the product\'s fields.' }),
  assigneeType: StringEnum(assigneeTypes, {
    description: '`api` once the order is taken through ' +
    'this API; `auto` when the service delivered it itself, from stock or with the values its delivery ' +
    'endpoint answered.'
  }),
  deliveredValue: Nullable(Type.String(), {
    description: '`deliveredValues` joined by a line feed; null before delivery or when nothing was attached.'
  }),
  deliveredValues: Type.Array(Type.String(), { description: 'The issued values attached at delivery; `[]` before.' }),
  takenAt: Nullable(Timestamp, { description: 'Null until taken.' }),
  deliveredAt: Nullable(Timestamp, { description: 'Null until delivered.' })
}, { 'x-component': 'Order', title: 'Order' })
export type Order = Static<typeof OrderSchema>

const statusList = `(${orderStatuses.join('|')})`

export const OrderListQuery = Type.Object({
  status: Type.String({
    pattern: `^${statusList}(,${statusList})*$`,
    default: 'paid',
    description: 'One status or several, comma-separated (e.g. `processing,awaiting_confirmation`). Default ' +
      '`paid`: the new orders.'
  }),
  productId: Type.Optional(Id),
  ...PageQuery(20),
  sort: StringEnum(['asc', 'desc'], {
    default: 'asc',
    description: 'By createdAt (id breaks ties). Default `asc`: oldest first, the work queue order.'
  })
})
export type OrderListQuery = Static<typeof OrderListQuery>

const DeliveredValue = Type.String({ maxLength: 10_000 })

export const DeliverBody = OptionalBody(Type.Object({
  value: Type.Optional(DeliveredValue),
  values: Type.Optional(Type.Array(DeliveredValue, { maxItems: 100 }))
}, {
  'x-component': 'DeliverInput',
  description: 'The issued value(s), each up to 10 000 characters, at most ' +
  '100; `values` wins over `value`. An empty body attaches nothing.'
}))
export type DeliverBody = Static<typeof DeliverBody>

export const CancelBody = OptionalBody(Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 1000 })),
  restock: Type.Optional(Type.Boolean({
    default: false,
    description: '`true`: the stock items delivered to ' +
    'the order become available again (and may fill waiting orders); `false` (default): they stay delivered, ' +
    'the buyer has seen them.'
  }))
}, {
  'x-component': 'CancelInput',
  description: 'Optional reason (up to 1000 characters) and `restock`; `{}` or no body is fine.'
}))
export type CancelBody = Static<typeof CancelBody>

export const PurchaseBody = Type.Object({
  productId: Id,
  quantity: Type.Integer({ minimum: 1, maximum: MAX_QUANTITY }),
  fieldValues: Type.Array(Type.Object({
    fieldId: Type.String({ description: 'A field id of the product.' }),
    value: Type.String({
      description: 'Text, a number, or for a select field the option id (several ' +
      'comma-separated when the field is `multiple`).'
    })
  }), { maxItems: 100 })
}, { 'x-component': 'PurchaseInput', title: 'Purchase' })
export type PurchaseBody = Static<typeof PurchaseBody>

export const LedgerEntrySchema = Type.Object({
  id: Id,
  orderId: Id,
  kind: StringEnum(ledgerKinds, {
    description: '`credit`: the shop is paid for a confirmed ' +
    'order; `refund`: the buyer got the money of a cancelled order back; `debit`: a claim refunded a ' +
    'completed order and the shop\'s credit was taken back.'
  }),
  amount: Type.Number(),
  createdAt: Timestamp
}, { 'x-component': 'LedgerEntry', title: 'LedgerEntry' })

export const LedgerSchema = Type.Object({
  entries: Type.Array(LedgerEntrySchema, { description: 'Oldest first.' }),
  balance: Type.Number({ description: 'The shop\'s balance in rubles: its credits minus its debits.' })
}, { 'x-component': 'Ledger' })
