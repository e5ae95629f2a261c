// The Sales page's chart (docs/portal.md): each row's gross as a bar of an SVG
// drawn on the server, so the page needs no script and no inline style (the
// Content-Security-Policy allows neither), with its axes: money on the left (zero,
// half and the highest), the periods' dates under the bars (at most MAX_DATE_LABELS
// of them, evenly spread). The table beside it carries the same figures for screen
// readers and keyboard users; the chart is a picture of it.
import type { SalesStats } from '../../schemas/stats.js'

export const CHART_WIDTH = 720
export const CHART_HEIGHT = 240
/** Room left of the bars (the money axis' labels), under them (the dates) and above the highest. */
const LEFT = 84
const BOTTOM = 34
const TOP = 12
const MAX_DATE_LABELS = 8

export interface ChartBar { x: number, y: number, width: number, height: number, index: number }
/** A money label of the vertical axis at height `y`. */
export interface ChartTick { y: number, value: number }
/** A date under the bar of row `index`, centred on `x`. */
export interface ChartDate { x: number, index: number }
export interface Chart {
  width: number
  height: number
  left: number
  baseline: number
  top: number
  bars: ChartBar[]
  ticks: ChartTick[]
  dates: ChartDate[]
  max: number
}

const tenth = (n: number) => Math.round(n * 10) / 10

/** Bars of `stats.rows` by gross, scaled to the highest; null when there is nothing to draw. */
export function salesChart (stats: SalesStats): Chart | null {
  const values = stats.rows.map((row) => row.gross)
  const max = Math.max(0, ...values)
  if (values.length === 0 || max === 0) return null
  const plot = CHART_WIDTH - LEFT
  const slot = plot / values.length
  const gap = slot > 6 ? Math.min(slot * 0.2, 8) : 0
  const baseline = CHART_HEIGHT - BOTTOM
  const room = baseline - TOP
  const bars = values.map((value, index) => {
    const height = tenth((value / max) * room)
    return {
      x: tenth(LEFT + index * slot + gap / 2),
      y: tenth(baseline - height),
      width: Math.max(0.5, tenth(slot - gap)),
      height,
      index
    }
  })
  const ticks = [0, 0.5, 1].map((share) => ({
    y: tenth(baseline - share * room),
    value: Math.round(max * share * 100) / 100
  }))
  const every = Math.ceil(values.length / MAX_DATE_LABELS)
  const dates = stats.groupBy === 'product'
    ? []
    : values.flatMap((_, index) => (index % every === 0 ? [{ x: tenth(LEFT + (index + 0.5) * slot), index }] : []))
  return { width: CHART_WIDTH, height: CHART_HEIGHT, left: LEFT, baseline, top: TOP, bars, ticks, dates, max }
}
