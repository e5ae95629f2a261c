// The events cursor: opaque, versioned, bound to its shop.
import t from 'tap'
import { decodeEventCursor, encodeEventCursor } from '../../domain/event-cursor.js'

const shop = '6f1c2a4e-0b7d-4c1e-9a55-5f0d3c1e0a11'
const other = '0b1c2a4e-0b7d-4c1e-9a55-5f0d3c1e0a12'

t.test('round trip', async (t) => {
  for (const seq of [0, 1, 35, 36, 1_000_000, Number.MAX_SAFE_INTEGER]) {
    const cursor = encodeEventCursor(shop, seq)
    t.match(cursor, /^v1_[0-9a-z]+_[0-9a-f]{8}$/)
    t.ok(cursor.length <= 27, 'short')
    t.equal(decodeEventCursor(shop, cursor), seq)
  }
})

t.test('not a cursor of this shop', async (t) => {
  const cursor = encodeEventCursor(shop, 42)
  t.equal(decodeEventCursor(other, cursor), null, 'another shop\'s')
  const [, seq, check] = cursor.split('_')
  const refused = [
    '', 'latest', cursor.toUpperCase(), `v2_${seq}_${check}`, `v1_${seq}_${check}0`, `v1_${seq}x_${check}`,
    `v1_0${seq}_${check}`, `v1__${check}`, `v1_${seq}_`, `v1_${(43).toString(36)}_${check}`, ` ${cursor}`,
    `v1_zzzzzzzzzzz_${check}`
  ]
  for (const bad of refused) t.equal(decodeEventCursor(shop, bad), null, JSON.stringify(bad))
})
