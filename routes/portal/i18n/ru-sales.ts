// The Russian texts of the Sales page's presets and partial periods (docs/portal.md
// "Sales"), kept beside ru.ts, which spreads them in.
import type { enSales } from './en-sales.js'

export const ruSales: Record<keyof typeof enSales, string> = {
  'sales.presets': 'Быстрый выбор',
  'sales.partial': '{label} (неполный: {from} – {to})',
  'sales.partialNote': 'Неделя или месяц с пометкой «неполный» обрезаны диапазоном: в их цифрах только дни, ' +
    'указанные рядом.'
}
