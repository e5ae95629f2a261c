// A product's stock (docs/stock.md): the settings and counts, the items as a
// listing shows them, and the bodies of patch, add and remove. Stock bodies
// are closed: an unknown property is a 400, not ignored.
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox'
import { autoDeliveryModes, stockItemStatuses } from '../domain/stock-rules.js'
import { Id, Nullable, StringEnum, Timestamp } from './common.js'

export const AUTO_DELIVERY = autoDeliveryModes
const STOCK_ITEM_STATUSES = stockItemStatuses
export const MAX_VALUES_PER_ADD = 10_000
export const MAX_VALUE_LENGTH = 10_000
export const MAX_IDS_PER_REMOVE = 1000

/**
 * An object that refuses properties it does not name (removeAdditional only strips where
 * `additionalProperties` is false).
 */
function Closed<T extends TProperties> (properties: T, options: Record<string, unknown>): TObject<T> {
  return Type.Object(properties,
    { ...options, additionalProperties: Type.Not(Type.Any(), { description: 'no other property' }) })
}

const NullableId = Nullable(Id)

export const StockSchema = Type.Object({
  productId: Id,
  autoDelivery: StringEnum(AUTO_DELIVERY, {
    description: '`off` (default): orders wait for a bot or a person; ' +
    '`stock`: paid orders are delivered from this stock at once; `endpoint`: from the seller\'s endpoint.'
  }),
  optionFieldId: Nullable(Id, {
    description: 'The required, single-choice select field whose options are the ' +
    'variants; null: one stock for the product.'
  }),
  lowStockThreshold: Type.Integer({
    description: '`stock.low` is sent when a delivery takes the available count to at most this (0: never).'
  }),
  deactivateWhenEmpty: Type.Boolean({
    description: 'Make the product inactive when its whole available count reaches 0; adding items reactivates it.'
  }),
  deactivatedByStock: Type.Boolean({
    description: 'The product is inactive because its stock ran out (cleared by adding items or by any PUT).'
  }),
  available: Type.Integer(),
  delivered: Type.Integer(),
  removed: Type.Integer(),
  defective: Type.Integer({
    description: 'Items a claim reported as not working: never available again ' +
    '(available + delivered + removed + defective = added).'
  }),
  autoReplace: Type.Boolean({
    description: 'A claim on values that all came from this stock is replaced from ' +
    'it at once, at most once per order (docs/claims.md).'
  }),
  options: Type.Array(Type.Object({ optionId: Id, label: Type.String(), available: Type.Integer() }),
    { description: '`[]` unless `optionFieldId` is set: then each option of that field, in the field\'s order.' }),
  updatedAt: Timestamp
}, { 'x-component': 'Stock', title: 'Stock' })

export const StockItemSchema = Type.Object({
  id: Id,
  optionId: Nullable(Id, { description: 'The variant; null when the stock has no `optionFieldId`.' }),
  status: StringEnum(STOCK_ITEM_STATUSES),
  orderId: Nullable(Id, { description: 'The order it was delivered to; null until then.' }),
  preview: Type.String({
    description: 'The value\'s first 4 characters and `…` (only `…` for values of 8 ' +
    'characters or fewer). A listing never shows whole values.'
  }),
  createdAt: Timestamp,
  deliveredAt: Nullable(Timestamp),
  removedAt: Nullable(Timestamp)
}, { 'x-component': 'StockItem', title: 'StockItem' })

export const RemovedStockItemSchema = Type.Object({
  ...StockItemSchema.properties,
  value: Type.String({ description: 'The whole value: the seller takes it back.' })
}, { 'x-component': 'RemovedStockItem', title: 'RemovedStockItem' })

export const StockPatchBody = Closed({
  autoDelivery: Type.Optional(StringEnum(AUTO_DELIVERY)),
  optionFieldId: Type.Optional(NullableId),
  lowStockThreshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  deactivateWhenEmpty: Type.Optional(Type.Boolean()),
  autoReplace: Type.Optional(Type.Boolean())
}, {
  'x-component': 'StockPatch',
  description: 'Only the properties sent change. `optionFieldId` changes only ' +
  'while no item is available (409 STOCK_NOT_EMPTY).'
})
export type StockPatchBody = Static<typeof StockPatchBody>

export const StockAddBody = Closed({
  values: Type.Array(Type.String({
    'x-trimmed-length': [1, MAX_VALUE_LENGTH],
    description: `1–${MAX_VALUE_LENGTH} characters after trimming surrounding whitespace (stored trimmed); no ` +
      'NUL character.'
  }), { minItems: 1, maxItems: MAX_VALUES_PER_ADD }),
  optionId: Type.Optional(Id)
}, {
  'x-component': 'StockAddInput',
  description: `1–${MAX_VALUES_PER_ADD} values, added in this order. ` +
  '`optionId` is required when the stock has an `optionFieldId` (an option of that field) and refused otherwise.'
})
export type StockAddBody = Static<typeof StockAddBody>

export const StockAddResult = Type.Object({
  added: Type.Integer(),
  duplicates: Type.Integer({
    description: 'Values not added: equal to an available or delivered item of the product, or repeated in the request.'
  }),
  filledOrders: Type.Integer({
    description: 'Waiting orders delivered from the new items (with `autoDelivery: stock`).'
  }),
  stock: StockSchema
})

export const StockRemoveBody = Closed({
  ids: Type.Array(Type.String({ description: 'An item id of this product.' }),
    { minItems: 1, maxItems: MAX_IDS_PER_REMOVE, uniqueItems: true })
}, {
  'x-component': 'StockRemoveInput',
  description: `1–${MAX_IDS_PER_REMOVE} ids of available items of this ` +
  'product, each once.'
})
export type StockRemoveBody = Static<typeof StockRemoveBody>

export const StockItemListQuery = Type.Object({
  status: Type.Optional(StringEnum(STOCK_ITEM_STATUSES)),
  optionId: Type.Optional(Id),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Items per page (1–100, default 50).' }),
  after: Type.Optional(Type.String({ maxLength: 32, description: 'The `nextCursor` of the previous page.' }))
})
export type StockItemListQuery = Static<typeof StockItemListQuery>

export const StockItemPage = Type.Object({
  items: Type.Array(StockItemSchema, { description: 'Newest first.' }),
  nextCursor: Nullable(Type.String(), {
    description: 'Pass as `after` for the next (older) page; null when there is none.'
  })
})
