// Products: the input of create / replace (docs/api-rules.md, catalog), the full
// representation (2.2, 2.3), the reduced list item, the list query and archive.
// The top-level input is left open: unknown properties are ignored, so a client
// can PUT back what it GOT with `active` renamed to `isActive` (the client's
// productInput does it, client/products.ts).
import { Type, type Static } from '@sinclair/typebox'
import { Id, Money, PageQuery, StringEnum, Timestamp } from './common.js'
import { TITLE_MAX } from '../domain/product-rules.js'

export const FIELD_TYPES = ['text', 'number', 'select'] as const
export type FieldType = typeof FIELD_TYPES[number]
export const EMPLOYEE_REWARD_TYPES = ['percent', 'fixed'] as const
export type EmployeeRewardType = typeof EMPLOYEE_REWARD_TYPES[number]

/** Field bounds and steps: stored as numeric(20, 6). */
const FieldNumber = (description: string) =>
  Type.Number({ minimum: -1e13, maximum: 1e13, 'x-decimals': 6, description })

export const FieldOptionInputSchema = Type.Object({
  id: Type.Optional(Type.String({ format: 'uuid', description: 'Keeps this existing option\'s id on replace.' })),
  label: Type.String({ minLength: 1, maxLength: 200 }),
  price: Money({ description: 'Surcharge for this option, in the product currency.' })
}, { 'x-component': 'ProductFieldOptionInput' })

export const FieldInputSchema = Type.Object({
  id: Type.Optional(Type.String({
    format: 'uuid',
    description: 'Keeps this existing field\'s id on replace; an id the product does not have is a validation error.'
  })),
  type: StringEnum(FIELD_TYPES, { description: '`text` and `number` have no options; `select` has at least one.' }),
  label: Type.String({ minLength: 1, maxLength: 200 }),
  required: Type.Boolean(),
  multiple: Type.Boolean(),
  options: Type.Array(FieldOptionInputSchema, { maxItems: 100 }),
  valuePricing: Type.Optional(Type.Boolean({ default: false })),
  valueMin: Type.Optional(FieldNumber('Smallest value of a `number` field (≤ valueMax).')),
  valueMax: Type.Optional(FieldNumber('Largest value of a `number` field.')),
  valueStep: Type.Optional(FieldNumber('Step of a `number` field (> 0 for `number`).')),
  dataRequest: Type.Optional(Type.Boolean({ default: false })),
  dataRequestWebhookUrl: Type.Optional(Type.String({ maxLength: 2000, description: 'Empty, or an https URL.' })),
  requestAfterPayment: Type.Optional(Type.Boolean({ default: false }))
}, { 'x-component': 'ProductFieldInput' })

export const ProductFilterSchema = Type.Object({
  filterId: Type.String({ maxLength: 100, description: 'A filter of the product\'s category.' }),
  optionIds: Type.Array(Type.String({ maxLength: 100 }),
    { maxItems: 100, uniqueItems: true, description: 'Options of that filter.' })
}, { 'x-component': 'ProductFilter' })

export const EmployeeRewardSchema = Type.Object({
  type: StringEnum(EMPLOYEE_REWARD_TYPES, {
    description: '`percent` (value 0–100) or `fixed` (an amount in the product currency). `{percent, 0}` means none.'
  }),
  value: Money()
}, { 'x-component': 'EmployeeReward' })

/** Referenced ids are plain strings here: one that names nothing (well-formed or not) is a 404. */
export const ProductInputSchema = Type.Object({
  categoryId: Type.String({ maxLength: 100, description: 'A leaf category id from GET /v1/categories.' }),
  title: Type.String({
    maxLength: 1000,
    // The rule itself: 1–200 characters once surrounding whitespace is trimmed (the raw length capped at 1000).
    'x-trimmed-length': [1, TITLE_MAX],
    description: `1–${TITLE_MAX} characters after trimming surrounding whitespace (stored trimmed).`
  }),
  description: Type.String({ maxLength: 20_000 }),
  isActive: Type.Boolean({ description: 'Shown as `active`; always false while the product is archived.' }),
  external: Type.Boolean({ description: 'External automation: the product\'s orders are visible through /v1/orders.' }),
  currencyRateId: Type.String({
    maxLength: 100,
    description: 'Empty for ruble pricing, or one of the shop\'s currency rate ids.'
  }),
  price: Money({ description: 'In rubles, or in the currency of `currencyRateId`.' }),
  imageId: Type.String({ maxLength: 100, description: 'Empty, or a media id from POST /v1/media.' }),
  employeeReward: EmployeeRewardSchema,
  fields: Type.Array(FieldInputSchema, { maxItems: 50 }),
  filters: Type.Array(ProductFilterSchema, { maxItems: 50 })
}, { 'x-component': 'ProductInput', title: 'ProductInput' })
export type ProductInputBody = Static<typeof ProductInputSchema>

export const ProductFieldSchema = Type.Object({
  id: Id,
  type: StringEnum(FIELD_TYPES),
  label: Type.String(),
  required: Type.Boolean(),
  multiple: Type.Boolean(),
  options: Type.Array(Type.Object({ id: Id, label: Type.String(), price: Type.Number() })),
  valuePricing: Type.Boolean(),
  valueMin: Type.Number(),
  valueMax: Type.Number(),
  valueStep: Type.Number(),
  dataRequest: Type.Boolean(),
  dataRequestWebhookUrl: Type.String(),
  requestAfterPayment: Type.Boolean()
}, { 'x-component': 'ProductField' })

export const ProductSchema = Type.Object({
  id: Id,
  title: Type.String(),
  description: Type.String(),
  categoryId: Id,
  active: Type.Boolean(),
  archived: Type.Boolean(),
  external: Type.Boolean(),
  currencyRateId: Type.String({ description: 'Empty when the price is in rubles.' }),
  price: Type.Number({ description: 'In rubles, or in the currency of `currencyRateId`.' }),
  priceRub: Type.Number({ description: 'round_half_up(price × current rate, 2); equals `price` for ruble pricing.' }),
  imageId: Type.String(),
  imageUrl: Type.String({ description: 'Public URL of the image; empty when there is none.' }),
  // The input's own schema: a GET's value type-checks as a PUT's.
  employeeReward: EmployeeRewardSchema,
  fields: Type.Array(ProductFieldSchema),
  filters: Type.Array(Type.Object({ filterId: Id, optionIds: Type.Array(Id) })),
  createdAt: Timestamp,
  updatedAt: Timestamp
}, { 'x-component': 'Product', title: 'Product' })

/** The reduced list item (docs/api-rules.md, catalog): options carry only id and label. */
export const ReducedProductSchema = Type.Object({
  id: Id,
  title: Type.String(),
  price: Type.Number(),
  active: Type.Boolean(),
  fields: Type.Array(Type.Object({
    id: Id,
    type: StringEnum(FIELD_TYPES),
    label: Type.String(),
    required: Type.Boolean(),
    multiple: Type.Boolean(),
    options: Type.Array(Type.Object({ id: Id, label: Type.String() })),
    valuePricing: Type.Boolean(),
    valueMin: Type.Number(),
    valueMax: Type.Number(),
    valueStep: Type.Number(),
    dataRequest: Type.Boolean()
  }))
}, { 'x-component': 'ReducedProduct', title: 'ReducedProduct' })

const BooleanFilter = (description: string) => Type.Optional(Type.Boolean({ description }))

export const ProductListQuerySchema = Type.Object({
  view: StringEnum(['full', 'reduced'] as const, {
    default: 'full',
    description: '`full` (default): all products, paged. `reduced`: non-archived products with external ' +
      'automation, reduced shape, no paging.'
  }),
  ...PageQuery(20),
  external: BooleanFilter('Only products with (true) or without (false) external automation.'),
  archived: BooleanFilter('Only archived (true) or non-archived (false) products.'),
  active: BooleanFilter('Only active (true) or inactive (false) products.')
})

export const ProductPageSchema = Type.Object({
  products: Type.Array(ProductSchema),
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer()
}, { title: 'ProductPage' })

export const ReducedProductListSchema = Type.Object({
  products: Type.Array(ReducedProductSchema)
}, { title: 'ReducedProductList' })

export const ArchiveInputSchema = Type.Object({
  archived: Type.Boolean({
    description: '`true` hides and deactivates; `false` returns it from the archive, still inactive.'
  })
}, { 'x-component': 'ArchiveInput' })
