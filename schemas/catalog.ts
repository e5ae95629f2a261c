// Categories (marketplace-wide leaf categories with filters) and currency rates.
import { Type } from '@sinclair/typebox'
import { Id, StringEnum, Timestamp } from './common.js'

export const CATEGORY_FILTER_TYPES = ['buttons'] as const
export type CategoryFilterType = typeof CATEGORY_FILTER_TYPES[number]
/** A currency code as the operator sets it (the path of PUT /internal/v1/shops/{id}/currency-rates/{code}). */
const CurrencyCode = {
  pattern: '^[A-Z][A-Z0-9]{1,9}$',
  description: 'Upper-case currency code (2–10 characters), e.g. `USD`.'
}

export const CategoryFilterSchema = Type.Object({
  id: Id,
  name: Type.String(),
  type: StringEnum(CATEGORY_FILTER_TYPES, { description: 'How the filter is shown; `buttons` is a row of choices.' }),
  affectsPrice: Type.Boolean(),
  options: Type.Array(Type.Object({ id: Id, label: Type.String() }))
}, { 'x-component': 'CategoryFilter' })

export const CategorySchema = Type.Object({
  id: Id,
  pathRu: Type.String({ description: 'Russian path, segments separated by ` / `.' }),
  pathEn: Type.String({ description: 'English slug path, segments separated by `/`.' }),
  filters: Type.Array(CategoryFilterSchema)
}, { 'x-component': 'Category', title: 'Category' })

export const CategoryInputSchema = Type.Object({
  pathRu: Type.String({
    minLength: 1,
    maxLength: 500,
    pattern: '^\\S(.*\\S)?$',
    description: 'Segments separated by ` / `.'
  }),
  pathEn: Type.String({
    minLength: 1,
    maxLength: 500,
    pattern: '^[a-z0-9]+(-[a-z0-9]+)*(/[a-z0-9]+(-[a-z0-9]+)*)*$',
    description: 'Lower-case slugs separated by `/`.'
  }),
  filters: Type.Array(Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100 }),
    type: StringEnum(CATEGORY_FILTER_TYPES),
    affectsPrice: Type.Boolean(),
    options: Type.Array(Type.Object({ label: Type.String({ minLength: 1, maxLength: 100 }) }),
      { minItems: 1, maxItems: 100 })
  }), { maxItems: 20 })
}, { 'x-component': 'CategoryInput' })

export const CurrencyRateSchema = Type.Object({
  id: Id,
  code: Type.String(CurrencyCode),
  rate: Type.Number({ description: 'Rubles per one unit of the currency.' }),
  updatedAt: Timestamp
}, { 'x-component': 'CurrencyRate', title: 'CurrencyRate' })

export const CurrencyCodeSchema = Type.String(CurrencyCode)

export const CurrencyRateInputSchema = Type.Object({
  rate: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1_000_000_000,
    'x-decimals': 6,
    description: 'Rubles per one unit of the currency (up to 6 decimals).'
  })
}, { 'x-component': 'CurrencyRateInput' })
