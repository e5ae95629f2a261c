// The Sales page's chart (docs/portal.md): each row's gross as a bar of an SVG
// drawn on the server, so the page needs no script and no inline style (the
// Content-Security-Policy allows neither). The table beside it carries the same
// figures for screen readers and keyboard users; the chart is a picture of it.
import type { SalesStats } from '../../schemas/stats.js'

export const CHART_WIDTH = 720
export const CHART_HEIGHT = 220
/** Room under the bars (the zero line) and above the highest one. */
const BOTTOM = 20
const TOP = 10

export interface ChartBar { x: number, y: number, width: number, height: number, index: number }
export interface Chart { width: number, height: number, baseline: number, bars: ChartBar[], max: number }

/** Bars of `stats.rows` by gross, scaled to the highest; null when there is nothing to draw. */
export function salesChart (stats: SalesStats): Chart | null {
  const values = stats.rows.map((row) => row.gross)
  const max = Math.max(0, ...values)
  if (values.length === 0 || max === 0) return null
  const slot = CHART_WIDTH / values.length
  const gap = slot > 6 ? Math.min(slot * 0.2, 8) : 0
  const room = CHART_HEIGHT - BOTTOM - TOP
  const bars = values.map((value, index) => {
    const height = Math.round((value / max) * room * 10) / 10
    return {
      x: Math.round((index * slot + gap / 2) * 10) / 10,
      y: Math.round((CHART_HEIGHT - BOTTOM - height) * 10) / 10,
      width: Math.max(0.5, Math.round((slot - gap) * 10) / 10),
      height,
      index
    }
  })
  return { width: CHART_WIDTH, height: CHART_HEIGHT, baseline: CHART_HEIGHT - BOTTOM, bars, max }
}
