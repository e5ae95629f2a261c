// Stock's pure rules (docs/stock.md): which variant an order takes from, and
// which signals (stock.low, stock.empty) a change of a variant's available
// count gives. The data layer (db/stock/) applies them under the product's lock.

/** How a product's paid orders are fulfilled: by the seller, from stock, or by the delivery endpoint. */
export const autoDeliveryModes = ['off', 'stock', 'endpoint'] as const
export type AutoDelivery = typeof autoDeliveryModes[number]

/** A stock item's status. */
export const stockItemStatuses = ['available', 'delivered', 'removed', 'defective'] as const
export type StockItemStatus = typeof stockItemStatuses[number]

/** The variant key of items of a product without variants (a primary key cannot hold null). */
export const NO_OPTION = '00000000-0000-0000-0000-000000000000'

/** The option id a variant key stands for: null for NO_OPTION, as items and signals show it. */
export const optionIdOf = (optionKey: string): string | null => optionKey === NO_OPTION ? null : optionKey

/** A stock signal event (stock.low, stock.empty) as it goes on the feed. */
export interface StockSignal { type: 'stock.low' | 'stock.empty', data: Record<string, unknown> }

/** What the signals of a product depend on. */
export interface SignalSettings { id: string, lowStockThreshold: number }

/**
 * The signals of a variant's available count going from `before` to `after`:
 * stock.low only when a take (a purchase or a fill) crossed the threshold
 * downwards (threshold > 0); stock.empty when any taking (removals too)
 * brought it to 0.
 */
export function signalsOf (
  product: SignalSettings, optionKey: string, before: number, after: number, byTake: boolean
): StockSignal[] {
  const signals: StockSignal[] = []
  const optionId = optionIdOf(optionKey)
  const threshold = product.lowStockThreshold
  if (byTake && threshold > 0 && before > threshold && after <= threshold) {
    const data = { productId: product.id, optionId, available: after, lowStockThreshold: threshold }
    signals.push({ type: 'stock.low', data })
  }
  if (before > 0 && after === 0) {
    signals.push({ type: 'stock.empty', data: { productId: product.id, optionId, available: 0 } })
  }
  return signals
}

/**
 * The variant a buyer chose in a purchase's input: the value of the stock field
 * is the chosen option's id. NO_OPTION without a stock field; undefined when
 * the buyer gave no value for it.
 */
export function chosenOptionKey (
  optionFieldId: string | null, input: ReadonlyArray<{ fieldId: string, value: string }>
): string | undefined {
  return optionFieldId === null ? NO_OPTION : input.find((f) => f.fieldId === optionFieldId)?.value.trim()
}

/**
 * The variant a recorded order asks for: its field values keep the chosen
 * option's label, so the option is found by label (`optionsByLabel`, the first
 * option of a label winning). NO_OPTION without a stock field; null when no
 * option matches (the order cannot be filled from stock).
 */
export function recordedOptionKey (
  optionFieldId: string | null,
  fieldValues: ReadonlyArray<{ fieldId: string, value: string }>,
  optionsByLabel: ReadonlyMap<string, string>
): string | null {
  if (optionFieldId === null) return NO_OPTION
  const chosen = fieldValues.find((f) => f.fieldId === optionFieldId)
  return chosen ? optionsByLabel.get(chosen.value) ?? null : null
}

/** Options by label for recordedOptionKey, from the field's options in position order: the first of a label wins. */
export function optionsByLabel (options: ReadonlyArray<{ id: string, label: string }>): Map<string, string> {
  const byLabel = new Map<string, string>()
  for (const option of options) if (!byLabel.has(option.label)) byLabel.set(option.label, option.id)
  return byLabel
}

/**
 * A stock running low, as the portal marks it and Needs attention counts it: delivered
 * from stock, with a threshold above 0, and the available count at or below it.
 */
export const isLowStock = (stock: { autoDelivery: AutoDelivery, lowStockThreshold: number, available: number }) =>
  stock.autoDelivery === 'stock' && stock.lowStockThreshold > 0 && stock.available <= stock.lowStockThreshold
