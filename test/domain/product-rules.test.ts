import t from 'tap'
import { checkField, checkFilters, checkKeptIds, checkProductInput, isHttpsUrl } from '../../domain/product-rules.js'

const product = (overrides: Record<string, unknown> = {}) => ({
  title: 'Title',
  employeeReward: { type: 'percent', value: 0 },
  fields: [] as Array<{ id?: string, type: string, options: Array<{ id?: string }> }>,
  ...overrides
})
const paths = (problems: Array<{ path: string }>) => problems.map((p) => p.path)

t.test('isHttpsUrl', async (t) => {
  t.ok(isHttpsUrl('https://hooks.example.com/path?x=1'))
  t.notOk(isHttpsUrl('http://hooks.example.com/'))
  t.notOk(isHttpsUrl('ftp://example.com/'))
  t.notOk(isHttpsUrl('https:/'))
  t.notOk(isHttpsUrl('hooks.example.com'))
  t.notOk(isHttpsUrl('javascript:alert(1)'))
})

t.test('checkField: options, bounds, step and webhook by type', async (t) => {
  const option: { id?: string, label: string, price: number } = { label: 'A', price: 0 }
  t.same(checkField({ type: 'text', options: [] }, 'f'), [])
  t.same(paths(checkField({ type: 'text', options: [option] }, 'f')), ['f.options'])
  t.same(checkField({ type: 'number', options: [], valueMin: 1, valueMax: 2, valueStep: 0.5 }, 'f'), [])
  t.same(checkField({ type: 'number', options: [], valueMin: 2, valueMax: 2, valueStep: 1 }, 'f'), [])
  t.same(paths(checkField({ type: 'number', options: [option], valueStep: 1 }, 'f')), ['f.options'])
  t.same(paths(checkField({ type: 'number', options: [], valueMin: 3, valueMax: 2, valueStep: 1 }, 'f')), ['f.valueMin'])
  t.same(paths(checkField({ type: 'number', options: [], valueMin: -5, valueMax: -10, valueStep: 1 }, 'f')), ['f.valueMin'])
  t.same(paths(checkField({ type: 'number', options: [] }, 'f')), ['f.valueStep'], 'a number field needs a step')
  t.same(paths(checkField({ type: 'number', options: [], valueStep: -1 }, 'f')), ['f.valueStep'])
  t.same(checkField({ type: 'select', options: [option] }, 'f'), [])
  t.same(paths(checkField({ type: 'select', options: [] }, 'f')), ['f.options'])
  t.same(checkField({ type: 'text', options: [], valueMin: 5, valueMax: 1 }, 'f'), [], 'bounds only matter for number fields')
  t.same(checkField({ type: 'text', options: [], dataRequestWebhookUrl: '' }, 'f'), [], 'an empty webhook is none')
  t.same(paths(checkField({ type: 'text', options: [], dataRequestWebhookUrl: 'http://x.example/' }, 'f')), ['f.dataRequestWebhookUrl'])
})

t.test('checkProductInput: percent reward, fields, duplicate ids (the title length is a schema rule)', async (t) => {
  t.same(checkProductInput(product()), [])
  t.same(paths(checkProductInput(product({ employeeReward: { type: 'percent', value: 101 } }))), ['body.employeeReward.value'])
  t.same(checkProductInput(product({ employeeReward: { type: 'fixed', value: 101 } })), [])
  t.same(paths(checkProductInput(product({ fields: [{ type: 'text', options: [] }, { type: 'select', options: [] }] }))), ['body.fields.1.options'])
  t.same(paths(checkProductInput(product({
    fields: [
      { id: 'f1', type: 'select', options: [{ id: 'o1' }] },
      { id: 'f1', type: 'select', options: [{ id: 'o1' }] }
    ]
  }))), ['body.fields.1.id', 'body.fields.1.options.0.id'])
  t.same(paths(checkProductInput(product({ employeeReward: { type: 'percent', value: 101 }, fields: [{ type: 'select', options: [] }] }))), ['body.employeeReward.value', 'body.fields.0.options'], 'every problem at once')
})

t.test('checkFilters: the category\'s filters, their options, each once', async (t) => {
  const category = { filters: [{ id: 'region', options: [{ id: 'eu' }, { id: 'us' }] }, { id: 'platform', options: [{ id: 'pc' }] }] }
  t.same(checkFilters([], category), [])
  t.same(checkFilters([{ filterId: 'region', optionIds: ['eu', 'us'] }, { filterId: 'platform', optionIds: [] }], category), [])
  t.same(paths(checkFilters([{ filterId: 'color', optionIds: [] }], category)), ['body.filters.0.filterId'])
  t.same(paths(checkFilters([{ filterId: 'region', optionIds: ['pc'] }], category)), ['body.filters.0.optionIds.0'])
  t.same(paths(checkFilters([{ filterId: 'region', optionIds: [] }, { filterId: 'region', optionIds: ['eu'] }], category)), ['body.filters.1.filterId'])
  t.same(paths(checkFilters([{ filterId: 'region', optionIds: [] }], { filters: [] })), ['body.filters.0.filterId'])
})

t.test('checkKeptIds: ids must be the product\'s own, options of the same field', async (t) => {
  const existing = new Map([['f1', new Set(['o1', 'o2'])], ['f2', new Set(['o3'])]])
  t.same(checkKeptIds([{ type: 'text', options: [] }], existing), [], 'no ids: all new')
  t.same(checkKeptIds([{ id: 'f1', type: 'select', options: [{ id: 'o2' }, {}] }], existing), [])
  t.same(paths(checkKeptIds([{ id: 'f9', type: 'text', options: [] }], existing)), ['body.fields.0.id'])
  t.same(paths(checkKeptIds([{ id: 'f1', type: 'select', options: [{ id: 'o3' }] }], existing)), ['body.fields.0.options.0.id'], 'an option of another field')
  t.same(paths(checkKeptIds([{ type: 'select', options: [{ id: 'o1' }] }], existing)), ['body.fields.0.options.0.id'], 'an option id on a new field')
  t.same(paths(checkKeptIds([{ id: 'f1', type: 'text', options: [] }], new Map())), ['body.fields.0.id'], 'on create every id is unknown')
})
