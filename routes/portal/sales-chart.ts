// The Sales page's chart (docs/portal.md): each row's gross as a bar of an SVG
// drawn on the server, so the page needs no script and no inline style (the
// Content-Security-Policy allows neither), with its axes: money on the left (zero,
// half and the highest), the periods' dates under the bars (at most a size's `dates`
// of them, evenly spread). It is drawn twice, wide and narrow, and the page's CSS shows
// the one that fits: an SVG scales its text with it, so the wide one's 13 px labels would
// read ~7 px on a phone, while the narrow one's, drawn about as wide as a phone's screen,
// stay ~13 px. The table beside it carries the same figures for screen readers and
// keyboard users; the chart is a picture of it.
import type { SalesStats } from '../../schemas/stats.js'

/** The chart's sizes: its width in the SVG's units (about its CSS pixels when shown) and its dates at most. */
export const CHART_SIZES = {
  wide: { width: 720, dates: 8 },
  narrow: { width: 340, dates: 4 }
} as const
export type ChartSize = keyof typeof CHART_SIZES
export const CHART_HEIGHT = 240
/** Room left of the bars (the money axis' labels), under them (the dates) and above the highest. */
const LEFT = 84
const BOTTOM = 34
const TOP = 12

export interface ChartBar { x: number, y: number, width: number, height: number, index: number }
/** A money label of the vertical axis at height `y`. */
export interface ChartTick { y: number, value: number }
/** A date under the bar of row `index`, centred on `x`. */
export interface ChartDate { x: number, index: number }
export interface Chart {
  size: ChartSize
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

/** Bars of `stats.rows` by gross, scaled to the highest, drawn at `size`; null when there is nothing to draw. */
export function salesChart (stats: SalesStats, size: ChartSize = 'wide'): Chart | null {
  const { width, dates: maxDates } = CHART_SIZES[size]
  const values = stats.rows.map((row) => row.gross)
  const max = Math.max(0, ...values)
  if (values.length === 0 || max === 0) return null
  const plot = width - LEFT
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
  const every = Math.ceil(values.length / maxDates)
  const dates = stats.groupBy === 'product'
    ? []
    : values.flatMap((_, index) => (index % every === 0 ? [{ x: tenth(LEFT + (index + 0.5) * slot), index }] : []))
  return { size, width, height: CHART_HEIGHT, left: LEFT, baseline, top: TOP, bars, ticks, dates, max }
}
