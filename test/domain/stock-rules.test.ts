// Stock's pure rules on their own (domain/stock-rules.ts): the signals of a
// count's change, and the variant a purchase or a recorded order takes from.
import t from 'tap'
import { chosenOptionKey, NO_OPTION, optionIdOf, optionsByLabel, recordedOptionKey, signalsOf } from '../../domain/stock-rules.js'

const product = (lowStockThreshold: number) => ({ id: 'p1', lowStockThreshold })
const OPTION = '5b0e6f4e-0c57-4a52-9b7a-2f0c1d3e4a5b'

t.test('stock.low: a take crossing the threshold downwards, once per crossing', async (t) => {
  const low = (available: number, optionId: string | null = null) =>
    ({ type: 'stock.low', data: { productId: 'p1', optionId, available, lowStockThreshold: 3 } })
  t.same(signalsOf(product(3), NO_OPTION, 5, 3, true), [low(3)], 'down to the threshold')
  t.same(signalsOf(product(3), NO_OPTION, 4, 1, true), [low(1)], 'past it')
  t.same(signalsOf(product(3), OPTION, 4, 2, true), [low(2, OPTION)], 'of an option: its id')
  t.same(signalsOf(product(3), NO_OPTION, 3, 2, true), [], 'already at or below: no second signal')
  t.same(signalsOf(product(3), NO_OPTION, 9, 4, true), [], 'still above')
  t.same(signalsOf(product(0), NO_OPTION, 5, 1, true), [], 'threshold 0: no low-stock signal')
  t.same(signalsOf(product(3), NO_OPTION, 5, 2, false), [], 'a removal never signals stock.low')
})

t.test('stock.empty: any taking down to 0', async (t) => {
  const empty = (optionId: string | null) => ({ type: 'stock.empty', data: { productId: 'p1', optionId, available: 0 } })
  t.same(signalsOf(product(0), NO_OPTION, 2, 0, true), [empty(null)], 'by a take')
  t.same(signalsOf(product(0), OPTION, 2, 0, false), [empty(OPTION)], 'by a removal')
  t.same(signalsOf(product(0), NO_OPTION, 0, 0, false), [], 'nothing to empty')
  t.same(signalsOf(product(5), NO_OPTION, 6, 0, true).map((s) => s.type), ['stock.low', 'stock.empty'], 'both, low first')
})

t.test('variant keys', async (t) => {
  t.equal(optionIdOf(NO_OPTION), null)
  t.equal(optionIdOf(OPTION), OPTION)

  // A purchase's input: the stock field's value is the option id.
  t.equal(chosenOptionKey(null, []), NO_OPTION, 'no stock field: the one variant')
  t.equal(chosenOptionKey('f1', [{ fieldId: 'f1', value: ` ${OPTION} ` }]), OPTION, 'trimmed')
  t.equal(chosenOptionKey('f1', [{ fieldId: 'f2', value: OPTION }]), undefined, 'no value for the stock field')

  // A recorded order: the field value keeps the option's label.
  const byLabel = optionsByLabel([{ id: 'o1', label: 'EU' }, { id: 'o2', label: 'US' }, { id: 'o3', label: 'EU' }])
  t.same([...byLabel], [['EU', 'o1'], ['US', 'o2']], 'the first option of a label wins')
  t.equal(recordedOptionKey(null, [], byLabel), NO_OPTION)
  t.equal(recordedOptionKey('f1', [{ fieldId: 'f1', value: 'US' }], byLabel), 'o2')
  t.equal(recordedOptionKey('f1', [{ fieldId: 'f1', value: 'Asia' }], byLabel), null, 'no such option any more')
  t.equal(recordedOptionKey('f1', [], byLabel), null, 'no value recorded')
})
