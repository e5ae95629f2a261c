// A product as GET returned it, turned into the body of a PUT. The public API
// reads `active` but takes `isActive` on input (docs/api-rules.md): everything
// else of a GET body goes back as it is, and what is read-only (id, archived,
// priceRub, imageUrl, createdAt, updatedAt) is left out.
import type { components } from './schema.js'

export type Product = components['schemas']['Product']
export type ProductInput = components['schemas']['ProductInput']

/** The PUT body of `product` (`active` renamed to `isActive`), with `changes` applied on top. */
export function productInput (product: Product, changes: Partial<ProductInput> = {}): ProductInput {
  const {
    categoryId, title, description, active, external, currencyRateId, price, imageId, employeeReward, fields,
    filters
  } = product
  return {
    categoryId,
    title,
    description,
    isActive: active,
    external,
    currencyRateId,
    price,
    imageId,
    // The read side types `type` as a plain string; the values are the input's.
    employeeReward: employeeReward as ProductInput['employeeReward'],
    fields: fields as ProductInput['fields'],
    filters,
    ...changes
  }
}
