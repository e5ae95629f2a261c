import t from 'tap'
import { pricePurchase, type PurchaseField, type PurchaseProduct } from '../../domain/purchase.js'

const text = (id: string, required = true): PurchaseField => ({ id, type: 'text', label: `Text ${id}`, required, multiple: false, valueMin: '0', valueMax: '0', options: [] })
const select = (id: string, multiple: boolean, prices: string[], required = false): PurchaseField => ({
  id,
  type: 'select',
  label: `Select ${id}`,
  required,
  multiple,
  valueMin: '0',
  valueMax: '0',
  options: prices.map((price, i) => ({ id: `${id}-o${i}`, label: `Option ${i}`, price }))
})
const product = (price: string, rate: string | null, fields: PurchaseField[]): PurchaseProduct => ({ price, rate, fields })

function amount (p: PurchaseProduct, quantity: number, values: Array<{ fieldId: string, value: string }> = []): bigint {
  const priced = pricePurchase(p, quantity, values)
  if (!priced.ok) throw new Error(JSON.stringify(priced.problems))
  return priced.amountKopecks
}

t.test('amount in kopecks, exact and rounded once', async (t) => {
  t.equal(amount(product('499.90', null, []), 1), 49990n)
  t.equal(amount(product('0.10', null, [select('s', true, ['0.20'])]), 3, [{ fieldId: 's', value: 's-o0' }]), 90n, '(0.1 + 0.2) × 3 = 0.90 exactly')
  t.equal(amount(product('9.99', '92.5', [select('s', false, ['1.50'])]), 3, [{ fieldId: 's', value: 's-o0' }]), 318848n, '34.47 × 92.5 = 3188.475 → 3188.48')
  t.equal(amount(product('0.01', '0.5', []), 3), 2n, '0.015 → 0.02: rounding after multiplying by quantity')
  t.equal(amount(product('0.01', '0.5', []), 1), 1n, 'half up')
  t.equal(amount(product('0.01', '0.4', []), 1), 0n, 'below half down')
  t.equal(amount(product('1.01', '97.123456', []), 7), 68666n)
  t.equal(amount(product('10', null, [select('a', true, ['1', '2', '4']), select('b', false, ['100'])]), 2, [{ fieldId: 'a', value: 'a-o0,a-o2' }, { fieldId: 'b', value: 'b-o0' }]), 23000n, '2 × (10 + 1 + 4 + 100)')
})

t.test('stored values and problems', async (t) => {
  const p = product('5', null, [text('email'), select('size', false, ['0', '1'], true), select('extras', true, ['2', '3']), text('note', false),
    { id: 'n', type: 'number', label: 'Months', required: false, multiple: false, valueMin: '1', valueMax: '12', options: [] }])
  const ok = pricePurchase(p, 1, [
    { fieldId: 'note', value: '' },
    { fieldId: 'extras', value: 'extras-o1,extras-o0' },
    { fieldId: 'size', value: 'size-o1' },
    { fieldId: 'email', value: ' a@b.c ' },
    { fieldId: 'n', value: '12' }
  ])
  t.same(ok, {
    ok: true,
    amountKopecks: 1100n,
    fieldValues: [
      { fieldId: 'email', label: 'Text email', value: ' a@b.c ' },
      { fieldId: 'size', label: 'Select size', value: 'Option 1' },
      { fieldId: 'extras', label: 'Select extras', value: 'Option 1, Option 0' },
      { fieldId: 'n', label: 'Months', value: '12' }
    ]
  }, 'product field order, option labels in the chosen order, empty optional values dropped')

  const problems = (values: Array<{ fieldId: string, value: string }>, quantity = 1) => {
    const priced = pricePurchase(p, quantity, values)
    return priced.ok ? [] : priced.problems.map((x) => x.path)
  }
  const base = [{ fieldId: 'email', value: 'x' }, { fieldId: 'size', value: 'size-o0' }]
  t.same(problems(base), [])
  t.same(problems([{ fieldId: 'size', value: 'size-o0' }]), ['body.fieldValues'], 'required text missing')
  t.same(problems([{ fieldId: 'email', value: ' ' }, { fieldId: 'size', value: 'size-o0' }]), ['body.fieldValues.0.value'], 'blank counts as missing')
  t.same(problems([...base, { fieldId: 'x', value: '1' }]), ['body.fieldValues.2.fieldId'], 'unknown field')
  t.same(problems([...base, { fieldId: 'email', value: 'y' }]), ['body.fieldValues.2.fieldId'], 'field twice')
  t.same(problems([base[0], { fieldId: 'size', value: 'size-o0,size-o1' }]), ['body.fieldValues.1.value'], 'single choice')
  t.same(problems([...base, { fieldId: 'extras', value: 'extras-o0,extras-o0' }]), ['body.fieldValues.2.value'], 'option twice')
  t.same(problems([...base, { fieldId: 'extras', value: 'size-o0' }]), ['body.fieldValues.2.value'], 'option of another field')
  t.same(problems([...base, { fieldId: 'n', value: '0' }]), ['body.fieldValues.2.value'], 'number below the minimum')
  t.same(problems([...base, { fieldId: 'n', value: '1e3' }]), ['body.fieldValues.2.value'], 'not a plain number')
  t.same(problems([...base, { fieldId: 'note', value: 'x'.repeat(1001) }]), ['body.fieldValues.2.value'], 'too long')
  t.same(problems(base, 0), ['body.quantity'])
  t.same(problems(base, 1001), ['body.quantity'])
  t.same(problems(base, 1.5), ['body.quantity'])
  t.same(problems([]), ['body.fieldValues', 'body.fieldValues'], 'every problem at once')
  const huge = pricePurchase(product('1000000000', '1000', []), 1000, [])
  t.same(huge, { ok: false, problems: [{ path: 'body.quantity', message: 'makes the order total too large' }] }, 'a total the amount column cannot hold')
})
