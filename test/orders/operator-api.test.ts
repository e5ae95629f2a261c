import t from 'tap'
import { createProduct, emailField } from '../fixtures/products.js'
import { act, buy, confirm, ledger, orderIn, type Status } from '../fixtures/orders.js'
import { build, createShop, internalHeaders, setRate, type App } from '../helper.js'

type Product = Awaited<ReturnType<typeof createProduct>>

function purchase (app: App, payload: unknown) {
  return app.inject({ method: 'POST', url: '/internal/v1/orders', headers: internalHeaders, payload: payload as object })
}

const optionId = (product: Product, field: number, option: number): string => product.fields[field].options[option].id

t.test('the amount: quantity × (price + options) at the current rate, rounded half up once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)

  const rubles = await createProduct(app, shop, {
    price: 0.1,
    fields: [{ type: 'select', label: 'Extras', required: false, multiple: true, options: [{ label: 'Gift wrap', price: 0.2 }, { label: 'Express', price: 100 }, { label: 'Free', price: 0 }] }]
  })
  const cases: Array<{ name: string, quantity: number, value?: string, amount: number, stored?: string }> = [
    { name: 'price only', quantity: 1, amount: 0.1 },
    { name: 'no float drift (0.1 + 0.2) × 3', quantity: 3, value: optionId(rubles, 0, 0), amount: 0.9, stored: 'Gift wrap' },
    { name: 'several options, comma-separated', quantity: 2, value: `${optionId(rubles, 0, 0)},${optionId(rubles, 0, 1)}`, amount: 200.6, stored: 'Gift wrap, Express' },
    { name: 'spaces around ids', quantity: 1, value: ` ${optionId(rubles, 0, 2)} , ${optionId(rubles, 0, 1)}`, amount: 100.1, stored: 'Free, Express' },
    { name: 'quantity 1000', quantity: 1000, amount: 100 }
  ]
  for (const c of cases) {
    const res = await purchase(app, { productId: rubles.id, quantity: c.quantity, fieldValues: c.value ? [{ fieldId: rubles.fields[0].id, value: c.value }] : [] })
    t.equal(res.statusCode, 201, `${c.name}: ${res.body}`)
    const order = res.json().data.order
    t.equal(order.amount, c.amount, c.name)
    t.equal(order.quantity, c.quantity)
    t.same(order.fieldValues, c.stored ? [{ fieldId: rubles.fields[0].id, label: 'Extras', value: c.stored }] : [], `${c.name}: labels stored`)
  }

  const usd = await setRate(app, shop.shopId, 'USD', 92.5)
  const dollars = await createProduct(app, shop, {
    currencyRateId: usd,
    price: 9.99,
    fields: [
      { type: 'select', label: 'Region', required: true, multiple: false, options: [{ label: 'EU', price: 1.5 }, { label: 'US', price: 0.25 }] }
    ]
  })
  const inDollars = await buy(app, dollars, { quantity: 3, fieldValues: [{ fieldId: dollars.fields[0].id, value: optionId(dollars, 0, 0) }] })
  t.equal(inDollars.amount, 3188.48, '3 × (9.99 + 1.50) USD × 92.5 = 3188.475 → 3188.48')
  // The rate in force at purchase time is used; a later rate does not touch existing orders.
  await setRate(app, shop.shopId, 'USD', 100)
  const later = await buy(app, dollars, { quantity: 1, fieldValues: [{ fieldId: dollars.fields[0].id, value: optionId(dollars, 0, 1) }] })
  t.equal(later.amount, 1024, '(9.99 + 0.25) × 100')
  const reread = await app.inject({ method: 'GET', url: `/v1/orders/${inDollars.id}`, headers: shop.headers })
  t.equal(reread.json().data.order.amount, inDollars.amount, 'the first order keeps its amount')

  // Rounding happens once, on the whole order: 3 × 0.01 × 0.5 = 0.015 → 0.02 (per unit it would be 0.03).
  const half = await setRate(app, shop.shopId, 'HALF', 0.5)
  const tiny = await createProduct(app, shop, { currencyRateId: half, price: 0.01, fields: [] })
  t.equal((await buy(app, tiny, { quantity: 3 })).amount, 0.02)
  t.equal((await buy(app, tiny, { quantity: 1 })).amount, 0.01, '0.005 rounds half up')
  const odd = await setRate(app, shop.shopId, 'ODD', 97.123456)
  const oddProduct = await createProduct(app, shop, { currencyRateId: odd, price: 1.01, fields: [] })
  t.equal((await buy(app, oddProduct, { quantity: 7 })).amount, 686.66, '7 × 1.01 × 97.123456 = 686.6628… → 686.66')

  // Floats lose the kopeck here: 3 * (0.15 + 0.2) * 1.5 * 100 is 157.49999999999997,
  // so Math.round gives 1.57; the exact 1.575 rounds half up to 1.58.
  const oneAndHalf = await setRate(app, shop.shopId, 'OAH', 1.5)
  const floaty = await createProduct(app, shop, {
    currencyRateId: oneAndHalf,
    price: 0.15,
    fields: [{ type: 'select', label: 'Extras', required: true, multiple: false, options: [{ label: 'Gift wrap', price: 0.2 }] }]
  })
  const floatyOrder = await buy(app, floaty, { quantity: 3, fieldValues: [{ fieldId: floaty.fields[0].id, value: optionId(floaty, 0, 0) }] })
  t.equal(floatyOrder.amount, 1.58, '3 × (0.15 + 0.20) × 1.5 = 1.575 → 1.58 (floats give 1.57)')
})

t.test('purchase validation', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop, {
    fields: [
      emailField,
      { type: 'select', label: 'Edition', required: true, multiple: false, options: [{ label: 'Standard', price: 0 }, { label: 'Deluxe', price: 150.5 }] },
      { type: 'number', label: 'Months', required: false, multiple: false, options: [], valueMin: 1, valueMax: 12, valueStep: 1 },
      { type: 'text', label: 'Comment', required: false, multiple: false, options: [] }
    ]
  })
  const [email, edition, months, comment] = product.fields.map((f: { id: string }) => f.id)
  const deluxe = optionId(product, 1, 1)
  const valid = [{ fieldId: email, value: 'a@b.c' }, { fieldId: edition, value: deluxe }]

  const ok = await purchase(app, { productId: product.id, quantity: 2, fieldValues: [...valid, { fieldId: months, value: '6' }, { fieldId: comment, value: '' }] })
  t.equal(ok.statusCode, 201, ok.body)
  t.same(ok.json().data.order.fieldValues, [
    { fieldId: email, label: 'Email', value: 'a@b.c' },
    { fieldId: edition, label: 'Edition', value: 'Deluxe' },
    { fieldId: months, label: 'Months', value: '6' }
  ], 'in field order, labels for options, empty optional values left out')
  t.equal(ok.json().data.order.amount, 1300.8)
  t.equal(ok.json().data.order.status, 'paid')

  const bad: Array<[string, unknown]> = [
    ['required text missing', [{ fieldId: edition, value: deluxe }]],
    ['required text blank', [{ fieldId: email, value: '   ' }, { fieldId: edition, value: deluxe }]],
    ['required select missing', [{ fieldId: email, value: 'a@b.c' }]],
    ['unknown option id', [{ fieldId: email, value: 'a@b.c' }, { fieldId: edition, value: '00000000-0000-4000-8000-000000000000' }]],
    ['option label instead of id', [{ fieldId: email, value: 'a@b.c' }, { fieldId: edition, value: 'Deluxe' }]],
    ['two options on a single-choice field', [{ fieldId: email, value: 'a@b.c' }, { fieldId: edition, value: `${deluxe},${optionId(product, 1, 0)}` }]],
    ['option of another field', [{ fieldId: email, value: 'a@b.c' }, { fieldId: months, value: deluxe }, { fieldId: edition, value: deluxe }]],
    ['not a number', [...valid, { fieldId: months, value: 'six' }]],
    ['number out of range', [...valid, { fieldId: months, value: '13' }]],
    ['unknown field', [...valid, { fieldId: '00000000-0000-4000-8000-000000000000', value: 'x' }]],
    ['field twice', [...valid, { fieldId: email, value: 'again' }]],
    ['value too long', [{ fieldId: email, value: 'x'.repeat(1001) }, { fieldId: edition, value: deluxe }]],
    ['value not a string', [{ fieldId: email, value: 5 }, { fieldId: edition, value: deluxe }]]
  ]
  for (const [name, fieldValues] of bad) {
    const res = await purchase(app, { productId: product.id, quantity: 1, fieldValues })
    t.equal(res.statusCode, 400, name)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', name)
    t.ok(res.json().error.details?.length > 0, `${name}: details name the problem`)
  }
  for (const quantity of [0, 1001, 1.5, '2', -1]) {
    const res = await purchase(app, { productId: product.id, quantity, fieldValues: valid })
    t.equal(res.statusCode, 400, `quantity ${quantity}`)
  }
  for (const payload of [{}, { productId: product.id, quantity: 1 }, { productId: 'nope', quantity: 1, fieldValues: [] }]) {
    const res = await purchase(app, payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
  }

  const unknown = await purchase(app, { productId: '00000000-0000-4000-8000-000000000000', quantity: 1, fieldValues: [] })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'ORDER_NOT_FOUND')

  const inactive = await createProduct(app, shop, { isActive: false })
  const res = await purchase(app, { productId: inactive.id, quantity: 1, fieldValues: [{ fieldId: inactive.fields[0].id, value: 'a@b.c' }] })
  t.equal(res.statusCode, 400, 'an inactive product cannot be bought')
  const archived = await createProduct(app, shop)
  const archive = await app.inject({ method: 'POST', url: `/v1/products/${archived.id}/archive`, headers: shop.headers, payload: { archived: true } })
  t.equal(archive.statusCode, 200, archive.body)
  const res2 = await purchase(app, { productId: archived.id, quantity: 1, fieldValues: [{ fieldId: archived.fields[0].id, value: 'a@b.c' }] })
  t.equal(res2.statusCode, 400, 'an archived product cannot be bought')

  const list = await app.inject({ method: 'GET', url: '/v1/orders', headers: shop.headers })
  t.equal(list.json().data.total, 1, 'no refused purchase left an order behind')

  const noToken = await app.inject({ method: 'POST', url: '/internal/v1/orders', payload: { productId: product.id, quantity: 1, fieldValues: valid } })
  t.equal(noToken.statusCode, 401)
})

t.test('confirm: only from awaiting_confirmation, crediting the shop once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const expected: Record<Status, number> = { paid: 409, processing: 409, awaiting_confirmation: 200, completed: 409, cancelled: 409 }
  for (const [status, code] of Object.entries(expected) as Array<[Status, number]>) {
    const order = await orderIn(app, shop, product, status)
    const before = (await ledger(app, shop.shopId)).entries.length
    const res = await confirm(app, order.id)
    t.equal(res.statusCode, code, `confirm from ${status}`)
    if (code === 409) {
      t.equal(res.json().error.code, 'ORDER_INVALID_STATUS')
      t.equal((await ledger(app, shop.shopId)).entries.length, before, `no entry for a refused confirm from ${status}`)
    } else {
      t.equal(res.json().data.order.status, 'completed')
    }
  }
  const { entries, balance } = await ledger(app, shop.shopId)
  // completed (fixture) and awaiting_confirmation (confirmed here) credit; cancelled refunds.
  t.same(entries.map((e) => e.kind).sort(), ['credit', 'credit', 'refund'])
  t.equal(balance, 999.8, 'balance = sum of credits; the refund leaves it alone')
  for (const e of entries) {
    t.equal(e.amount, 499.9)
    t.match(e.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  }

  t.equal((await confirm(app, '00000000-0000-4000-8000-000000000000')).statusCode, 404)
  t.equal((await confirm(app, 'not-an-id')).statusCode, 404)
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  const noToken = await app.inject({ method: 'POST', url: `/internal/v1/orders/${order.id}/confirm` })
  t.equal(noToken.statusCode, 401)
  // The operator can confirm orders of products without automation too.
  const manual = await createProduct(app, shop, { external: false })
  const hidden = await buy(app, manual)
  t.equal((await confirm(app, hidden.id)).statusCode, 409, 'a paid order, visible or not, cannot be confirmed')
})

t.test('ledger of a shop', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app, 'Other')
  const product = await createProduct(app, shop, { price: 10 })
  const otherProduct = await createProduct(app, other, { price: 7 })

  t.same(await ledger(app, shop.shopId), { entries: [], balance: 0 })
  const a = await orderIn(app, shop, product, 'completed')
  const b = await orderIn(app, shop, product, 'cancelled')
  const c = await orderIn(app, shop, product, 'awaiting_confirmation')
  await act(app, shop, c.id, 'cancel')
  await orderIn(app, other, otherProduct, 'completed')
  const d = await buy(app, product, { quantity: 3 })
  await act(app, shop, d.id, 'take')
  await act(app, shop, d.id, 'deliver')
  await confirm(app, d.id)

  const { entries, balance } = await ledger(app, shop.shopId)
  t.same(entries.map((e) => [e.orderId, e.kind, e.amount]), [[a.id, 'credit', 10], [b.id, 'refund', 10], [c.id, 'refund', 10], [d.id, 'credit', 30]], 'oldest first, this shop only')
  t.equal(balance, 40)
  t.equal((await ledger(app, other.shopId)).balance, 7)

  const unknown = await app.inject({ method: 'GET', url: '/internal/v1/shops/00000000-0000-4000-8000-000000000000/ledger', headers: internalHeaders })
  t.equal(unknown.statusCode, 404)
  const malformed = await app.inject({ method: 'GET', url: '/internal/v1/shops/x/ledger', headers: internalHeaders })
  t.equal(malformed.statusCode, 404)
  const noToken = await app.inject({ method: 'GET', url: `/internal/v1/shops/${shop.shopId}/ledger` })
  t.equal(noToken.statusCode, 401)
  const sellerKey = await app.inject({ method: 'GET', url: `/internal/v1/shops/${shop.shopId}/ledger`, headers: shop.headers })
  t.equal(sellerKey.statusCode, 401, 'a shop key is not the internal token')
})
