import t from 'tap'
import { fromKopecks, kopecksToDecimal, moneyToNumber, toKopecks, toRubles, toScaled, rateToDecimal, scaledToDecimal } from '../../domain/money.js'

t.test('toKopecks parses numbers and numeric strings exactly', async (t) => {
  t.equal(toKopecks(0), 0n)
  t.equal(toKopecks(9.99), 999n)
  t.equal(toKopecks(0.07), 7n)
  t.equal(toKopecks(1.1), 110n)
  t.throws(() => toKopecks(0.1 + 0.2), RangeError, 'a float sum (0.30000000000000004) is refused, not silently rounded')
  t.equal(toKopecks(1_000_000_000), 100_000_000_000n)
  t.equal(toKopecks('19.90'), 1990n)
  t.equal(toKopecks(' 5 '), 500n)
  t.equal(toKopecks('-3.5'), -350n)
  t.equal(toKopecks('12.300000'), 1230n, 'trailing zeros beyond two places are fine')
  t.throws(() => toKopecks(1.005), RangeError, 'three decimals are refused, not rounded')
  t.throws(() => toKopecks('1.001'), RangeError)
  t.throws(() => toKopecks('abc'), RangeError)
  t.throws(() => toKopecks('1e3'), RangeError)
  t.throws(() => toKopecks(Number.NaN), RangeError)
  t.throws(() => toKopecks(Number.POSITIVE_INFINITY), RangeError)
})

t.test('toScaled handles exponent notation of small numbers', async (t) => {
  t.equal(toScaled(1e-6, 6), 1n)
  t.equal(toScaled(92.5134, 6), 92_513_400n)
  t.equal(toScaled('0.000001', 6), 1n)
  t.throws(() => toScaled(1e-7, 6), RangeError)
})

t.test('fromKopecks and kopecksToDecimal', async (t) => {
  t.equal(fromKopecks(92421n), 924.21)
  t.equal(fromKopecks(5n), 0.05)
  t.equal(fromKopecks(0n), 0)
  t.equal(fromKopecks(-150n), -1.5)
  t.equal(kopecksToDecimal(92421n), '924.21')
  t.equal(kopecksToDecimal(5n), '0.05')
  t.equal(kopecksToDecimal(-5n), '-0.05')
  t.equal(kopecksToDecimal(100_000_000_000n), '1000000000.00')
  t.equal(moneyToNumber('499.90'), 499.9)
  t.equal(moneyToNumber('0.00'), 0)
})

t.test('toRubles is round_half_up(amount × rate, 2), exact', async (t) => {
  t.equal(toRubles(999n, '92.513400'), 92421n, '9.99 × 92.5134 = 924.208866 → 924.21')
  t.equal(toRubles(999n, 100.5), 100400n, '9.99 × 100.5 = 1003.995 → 1004.00 (floats give 1003.9949…)')
  t.equal(toRubles(5n, 0.1), 1n, '0.05 × 0.1 = 0.005 → 0.01 (half up)')
  t.equal(toRubles(4n, 0.1), 0n, '0.04 × 0.1 = 0.004 → 0.00')
  t.equal(toRubles(10n, 3), 30n, '0.1 × 3 = 0.3 exactly')
  t.equal(toRubles(1n, '0.000001'), 0n)
  t.equal(toRubles(100_000_000_000n, '999.999999'), 99_999_999_900_000n, 'the largest price at a large rate stays exact')
  t.equal(toRubles(12345n, null), 12345n, 'no rate: already rubles')
  t.equal(toRubles(12345n, 1), 12345n)
})

t.test('scaledToDecimal and rateToDecimal: exact decimal strings, no floats', async (t) => {
  t.equal(scaledToDecimal(92_500_000n, 6), '92.500000')
  t.equal(scaledToDecimal(1n, 6), '0.000001')
  t.equal(scaledToDecimal(-1n, 2), '-0.01')
  t.equal(scaledToDecimal(7n, 0), '7')
  t.equal(rateToDecimal(92.5134), '92.513400')
  t.equal(rateToDecimal('0.000001'), '0.000001')
  t.equal(rateToDecimal(999999999.999999), '999999999.999999')
  t.throws(() => rateToDecimal(1.0000001), RangeError, 'more than 6 decimals is refused, not rounded')
})
