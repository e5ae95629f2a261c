// The product input rules JSON Schema cannot say (docs/api-rules.md, the catalog):
// field type rules, https webhooks, filters against the category, and ids kept
// on replace. Each check returns every problem found, as error details.
import type { ErrorDetail } from '../domain/errors.js'

export const TITLE_MAX = 200
export const PERCENT_MAX = 100

interface FieldLike {
  id?: string
  type: string
  options: Array<{ id?: string }>
  valueMin?: number
  valueMax?: number
  valueStep?: number
  dataRequestWebhookUrl?: string
}

interface ProductLike {
  title: string
  employeeReward: { type: string, value: number }
  fields: FieldLike[]
}

export function isHttpsUrl (value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.hostname !== ''
  } catch {
    return false
  }
}

export function checkField (field: FieldLike, path: string): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  if (field.type === 'text' && field.options.length > 0) {
    problems.push({ path: `${path}.options`, message: 'must be empty for a text field' })
  }
  if (field.type === 'number') {
    if (field.options.length > 0) {
      problems.push({
        path: `${path}.options`,
        message: 'must be empty for a number field'
      })
    }
    if ((field.valueMin ?? 0) > (field.valueMax ?? 0)) {
      problems.push({
        path: `${path}.valueMin`,
        message: 'must not be greater than valueMax'
      })
    }
    if ((field.valueStep ?? 0) <= 0) {
      problems.push({
        path: `${path}.valueStep`,
        message: 'must be greater than 0 for a number field'
      })
    }
  }
  if (field.type === 'select' && field.options.length === 0) {
    problems.push({ path: `${path}.options`, message: 'must have at least one option for a select field' })
  }
  if (field.dataRequestWebhookUrl && !isHttpsUrl(field.dataRequestWebhookUrl)) {
    problems.push({ path: `${path}.dataRequestWebhookUrl`, message: 'must be an https URL' })
  }
  return problems
}

/**
 * Rules on the input alone (no database): reward, fields, duplicate ids (the title's length is the schema's
 * x-trimmed-length).
 */
export function checkProductInput (input: ProductLike): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  if (input.employeeReward.type === 'percent' && input.employeeReward.value > PERCENT_MAX) {
    problems.push({ path: 'body.employeeReward.value', message: `must be at most ${PERCENT_MAX} for a percent reward` })
  }
  const fieldIds = new Set<string>()
  const optionIds = new Set<string>()
  input.fields.forEach((field, i) => {
    const path = `body.fields.${i}`
    problems.push(...checkField(field, path))
    if (field.id !== undefined) {
      if (fieldIds.has(field.id)) problems.push({ path: `${path}.id`, message: 'is used by another field' })
      fieldIds.add(field.id)
    }
    field.options.forEach((option, j) => {
      if (option.id === undefined) return
      if (optionIds.has(option.id)) {
        problems.push({
          path: `${path}.options.${j}.id`,
          message: 'is used by another option'
        })
      }
      optionIds.add(option.id)
    })
  })
  return problems
}

interface CategoryLike {
  filters: Array<{ id: string, options: Array<{ id: string }> }>
}

/** Each filter must be one of the category's, each option one of that filter's, no filter twice. */
export function checkFilters (
  filters: Array<{ filterId: string, optionIds: string[] }>, category: CategoryLike
): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  const seen = new Set<string>()
  filters.forEach((filter, i) => {
    const path = `body.filters.${i}`
    const known = category.filters.find((f) => f.id === filter.filterId)
    if (!known) {
      problems.push({ path: `${path}.filterId`, message: 'is not a filter of the product\'s category' })
      return
    }
    if (seen.has(filter.filterId)) problems.push({ path: `${path}.filterId`, message: 'appears more than once' })
    seen.add(filter.filterId)
    filter.optionIds.forEach((optionId, j) => {
      if (!known.options.some((o) => o.id === optionId)) {
        problems.push({ path: `${path}.optionIds.${j}`, message: 'is not an option of this filter' })
      }
    })
  })
  return problems
}

/**
 * On replace, a field id must be one of the product's fields, and an option id
 * one of the options of that same field. `existing` maps field id → option ids.
 */
export function checkKeptIds (fields: FieldLike[], existing: Map<string, Set<string>>): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  fields.forEach((field, i) => {
    const path = `body.fields.${i}`
    const keptOptions = field.id === undefined ? undefined : existing.get(field.id)
    if (field.id !== undefined && !keptOptions) {
      problems.push({
        path: `${path}.id`,
        message: 'is not a field of this product'
      })
    }
    field.options.forEach((option, j) => {
      if (option.id !== undefined && !keptOptions?.has(option.id)) {
        problems.push({ path: `${path}.options.${j}.id`, message: 'is not an option of this field' })
      }
    })
  })
  return problems
}
