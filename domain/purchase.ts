// A buyer's purchase (docs/api-rules.md, the operator API): checks the buyer's field values against
// the product's fields and prices the order exactly:
// amount = round_half_up(quantity × (price + chosen options' prices) × rate, 2).
import { toKopecks, toRubles } from './money.js'

export const MAX_QUANTITY = 1000
export const MAX_FIELD_VALUE_LENGTH = 1000
/** What the amount column holds: numeric(14, 2). */
const MAX_AMOUNT_KOPECKS = 10n ** 14n - 1n

export interface PurchaseField {
  id: string
  type: string
  label: string
  required: boolean
  multiple: boolean
  valueMin: string
  valueMax: string
  options: Array<{ id: string, label: string, price: string }>
}

export interface PurchaseProduct {
  /** In the product's currency (rubles when `rate` is null). */
  price: string
  /** Rubles per unit of the product's currency; null for ruble prices. */
  rate: string | null
  fields: PurchaseField[]
}

export interface FieldValueInput { fieldId: string, value: string }
export interface OrderFieldValue { fieldId: string, label: string, value: string }
export interface PurchaseProblem { path: string, message: string }

export type PricedPurchase =
  | { ok: true, amountKopecks: bigint, fieldValues: OrderFieldValue[] }
  | { ok: false, problems: PurchaseProblem[] }

const DECIMAL = /^-?\d+(\.\d+)?$/

/** One field's stored value and the price its chosen options add, or a problem. */
function resolveField (
  field: PurchaseField, raw: string, path: string
): { value: string, extra: bigint } | PurchaseProblem {
  if (raw.length > MAX_FIELD_VALUE_LENGTH) {
    return { path, message: `must be at most ${MAX_FIELD_VALUE_LENGTH} characters` }
  }
  if (field.type === 'select') {
    const ids = raw.split(',').map((id) => id.trim())
    if (ids.length > 1 && !field.multiple) return { path, message: 'this field takes one option id' }
    if (new Set(ids).size !== ids.length) return { path, message: 'an option is chosen twice' }
    const chosen = ids.map((id) => field.options.find((o) => o.id === id))
    if (chosen.some((o) => o === undefined)) {
      return { path, message: 'must be option ids of the field, comma-separated' }
    }
    const options = chosen as PurchaseField['options']
    return {
      value: options.map((o) => o.label).join(', '),
      extra: options.reduce((sum, o) => sum + toKopecks(o.price), 0n)
    }
  }
  if (field.type === 'number') {
    const text = raw.trim()
    if (!DECIMAL.test(text)) return { path, message: 'must be a number' }
    const [value, min, max] = [Number(text), Number(field.valueMin), Number(field.valueMax)]
    // 0..0 (the default) means the seller set no bounds.
    if (min < max && (value < min || value > max)) return { path, message: `must be between ${min} and ${max}` }
    return { value: text, extra: 0n }
  }
  return { value: raw, extra: 0n }
}

export function pricePurchase (product: PurchaseProduct, quantity: number, input: FieldValueInput[]): PricedPurchase {
  const problems: PurchaseProblem[] = []
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    problems.push({ path: 'body.quantity', message: `must be an integer from 1 to ${MAX_QUANTITY}` })
  }
  const given = new Map<string, { raw: string, path: string }>()
  input.forEach(({ fieldId, value }, i) => {
    const path = `body.fieldValues.${i}`
    if (!product.fields.some((f) => f.id === fieldId)) {
      problems.push({ path: `${path}.fieldId`, message: 'is not a field of the product' })
    } else if (given.has(fieldId)) {
      problems.push({ path: `${path}.fieldId`, message: 'is given twice' })
    } else {
      given.set(fieldId, { raw: value, path: `${path}.value` })
    }
  })

  let unitKopecks = toKopecks(product.price)
  const fieldValues: OrderFieldValue[] = []
  product.fields.forEach((field) => {
    const entry = given.get(field.id)
    if (entry === undefined || entry.raw.trim() === '') {
      if (field.required) {
        problems.push({
          path: entry?.path ?? 'body.fieldValues', message: `field "${field.label}" (${field.id}) is required`
        })
      }
      return
    }
    const resolved = resolveField(field, entry.raw, entry.path)
    if ('path' in resolved) {
      problems.push(resolved)
      return
    }
    unitKopecks += resolved.extra
    fieldValues.push({ fieldId: field.id, label: field.label, value: resolved.value })
  })

  if (problems.length > 0) return { ok: false, problems }
  const amountKopecks = toRubles(unitKopecks * BigInt(quantity), product.rate)
  if (amountKopecks > MAX_AMOUNT_KOPECKS) {
    return { ok: false, problems: [{ path: 'body.quantity', message: 'makes the order total too large' }] }
  }
  return { ok: true, amountKopecks, fieldValues }
}
