// The English texts of the Sales page's presets and partial periods (docs/portal.md
// "Sales"), kept beside en.ts, which spreads them in (the presets' names: words.ts).
export const enSales = {
  'sales.presets': 'Quick ranges',
  'sales.partial': '{label} (partial: {from} – {to})',
  'sales.partialNote': 'A week or month marked partial is cut by the range: its figures count only the days shown ' +
    'beside it.'
}
