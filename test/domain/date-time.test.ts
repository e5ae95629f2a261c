import t from 'tap'
import { parseDateTime } from '../../domain/date-time.js'

t.test('date-times JavaScript and Postgres read alike', async (t) => {
  const accepted: Array<[string, string]> = [
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00.123456Z', '2026-11-22T10:00:00.123Z'],
    ['2026-11-22t10:00:00.5z', '2026-11-22T10:00:00.500Z'],
    ['2026-11-22 13:00:00+03:00', '2026-11-22T10:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['9999-12-31T23:59:59+15:59', '9999-12-31T08:00:59.000Z'],
    ['0001-01-01T00:00:00-01:00', '0001-01-01T01:00:00.000Z']
  ]
  for (const [text, iso] of accepted) t.equal(parseDateTime(text)?.toISOString(), iso, text)

  for (const text of [
    '2026-11-22T23:59:60Z', // a leap second: Date cannot hold it
    '9999-12-31T23:59:59-23:59', // Postgres: time zone displacement out of range
    '2026-11-22T10:00:00+16:00',
    '9999-12-31T23:59:59-15:59', // year 10000 in UTC
    '0001-01-01T00:00:00+01:00', // year 0000 in UTC
    '0000-01-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:00:00+0300',
    '2026-11-22T10:00:00',
    '2026-11-22',
    'yesterday'
  ]) t.equal(parseDateTime(text), null, text)
})
