// The events feed's cursor (docs/events.md): an opaque string for a
// position in one shop's feed, that is a seq (every event up to it has been
// examined). `v1_<seq in base 36>_<check>`: the version leaves room to change the
// form; the check binds the cursor to its shop, so a cursor of another shop or a
// mangled one is refused instead of silently skipping or repeating events.
import { createHash } from 'node:crypto'

const CURSOR = /^v1_([0-9a-z]{1,11})_([0-9a-f]{8})$/

function check (shopId: string, seq: number): string {
  return createHash('sha256').update(`${shopId}:${seq}`).digest('hex').slice(0, 8)
}

export function encodeEventCursor (shopId: string, seq: number): string {
  return `v1_${seq.toString(36)}_${check(shopId, seq)}`
}

/** The seq a cursor of `shopId`'s feed stands for, or null when it is not one. */
export function decodeEventCursor (shopId: string, cursor: string): number | null {
  const match = CURSOR.exec(cursor)
  if (!match) return null
  const seq = parseInt(match[1], 36)
  if (!Number.isSafeInteger(seq) || match[1] !== seq.toString(36)) return null
  return match[2] === check(shopId, seq) ? seq : null
}
