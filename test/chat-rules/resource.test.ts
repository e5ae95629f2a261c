// /v1/chat-rules: the resource's rules and errors (docs/chat-rules.md) through HTTP.
import t from 'tap'
import { build, createShop } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { act, buy } from '../fixtures/orders.js'
import { openedClaim } from '../fixtures/claims.js'
import { createRule, ruleBody, ruleCall } from '../fixtures/chat-rules.js'

t.test('create, read, list, replace and delete a rule', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const created = await ruleCall(app, shop, 'POST', '', ruleBody({ name: '  Thanks  ', text: '  Hi {{ orderId }}  ' }))
  t.equal(created.statusCode, 201)
  const rule = created.json().data.rule
  t.match(rule, {
    name: 'Thanks',
    enabled: true,
    trigger: 'order.delivered',
    priority: 100,
    productIds: [],
    keywords: [],
    cooldownSeconds: 0,
    afterMinutes: null,
    callSeller: false,
    text: 'Hi {{ orderId }}',
    firedCount: 0,
    lastFiredAt: null
  })
  t.same((await ruleCall(app, shop, 'GET', `/${rule.id}`)).json().data.rule, rule)

  const later = await createRule(app, shop, { name: 'Help', trigger: 'message.keyword', keywords: ['!help'], priority: 5 })
  t.same((await ruleCall(app, shop, 'GET')).json().data.rules.map((r: { id: string }) => r.id), [later.id, rule.id],
    'by priority')

  const replaced = await ruleCall(app, shop, 'PUT', `/${rule.id}`,
    { name: 'Done', trigger: 'order.completed', text: 'Bye', productIds: [product.id], enabled: false })
  t.equal(replaced.statusCode, 200)
  t.match(replaced.json().data.rule, { id: rule.id, name: 'Done', trigger: 'order.completed', productIds: [product.id], enabled: false, priority: 100 })
  const back = await ruleCall(app, shop, 'PUT', `/${rule.id}`, { name: 'Done', trigger: 'order.completed', text: 'Bye' })
  t.match(back.json().data.rule, { productIds: [], enabled: true }, 'left-out properties go back to their defaults')

  const deleted = await ruleCall(app, shop, 'DELETE', `/${rule.id}`)
  t.equal(deleted.statusCode, 200)
  t.equal(deleted.json().data.rule.name, 'Done')
  t.equal((await ruleCall(app, shop, 'GET', `/${rule.id}`)).statusCode, 404)
  t.equal((await ruleCall(app, shop, 'GET')).json().data.rules.length, 1)
})

t.test('another shop\'s, an unknown or a malformed rule id is 404 NOT_FOUND', async (t) => {
  const app = await build(t)
  const [mine, other] = [await createShop(app, 'Mine'), await createShop(app, 'Other')]
  const rule = await createRule(app, other)
  for (const id of [rule.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
    for (const [method, payload] of [['GET'], ['PUT', ruleBody()], ['DELETE']] as const) {
      const res = await ruleCall(app, mine, method, `/${id}`, payload)
      t.equal(res.statusCode, 404, `${method} ${id}`)
      t.equal(res.json().error.code, 'NOT_FOUND')
    }
  }
  t.same((await ruleCall(app, mine, 'GET')).json().data.rules, [])
  t.equal((await ruleCall(app, other, 'GET', `/${rule.id}`)).statusCode, 200, 'the other shop\'s rule is untouched')
})

t.test('every rule of a field is a 400 naming it, and changes nothing', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: '   ' }, 'body.name'],
    [{ name: 'x'.repeat(101) }, 'body.name'],
    [{ trigger: 'order.taken' }, 'body.trigger'],
    [{ priority: 1001 }, 'body.priority'],
    [{ priority: 1.5 }, 'body.priority'],
    [{ productIds: ['00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000000'] }, 'body.productIds'],
    [{ keywords: ['hi'] }, 'body.keywords'],
    [{ trigger: 'message.keyword', keywords: [] }, 'body.keywords'],
    [{ trigger: 'message.keyword' }, 'body.keywords'],
    [{ trigger: 'message.keyword', keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) }, 'body.keywords'],
    [{ trigger: 'message.keyword', keywords: ['  '] }, 'body.keywords.0'],
    [{ trigger: 'message.keyword', keywords: ['x'.repeat(51)] }, 'body.keywords.0'],
    [{ trigger: 'message.keyword', keywords: ['Привет', 'ПРИВЕТ'] }, 'body.keywords'],
    [{ trigger: 'message.keyword', keywords: ['a b', 'A   b'] }, 'body.keywords'],
    [{ cooldownSeconds: 5 }, 'body.cooldownSeconds'],
    [{ trigger: 'message.keyword', keywords: ['a'], cooldownSeconds: 86_401 }, 'body.cooldownSeconds'],
    [{ afterMinutes: 30 }, 'body.afterMinutes'],
    [{ trigger: 'order.unconfirmed' }, 'body.afterMinutes'],
    [{ trigger: 'order.unconfirmed', afterMinutes: 9 }, 'body.afterMinutes'],
    [{ trigger: 'order.unconfirmed', afterMinutes: 20_161 }, 'body.afterMinutes'],
    [{ callSeller: true }, 'body.callSeller'],
    [{ text: ' ' }, 'body.text'],
    [{ text: 'x'.repeat(2001) }, 'body.text'],
    [{ text: 'Hi {{nope}}' }, 'body.text'],
    [{ text: 'Hi {{orderId' }, 'body.text'],
    [{ text: 'Reason: {{claimReason}}' }, 'body.text'],
    [{ enabled: 'yes' }, 'body.enabled']
  ]
  for (const [overrides, path] of cases) {
    const res = await ruleCall(app, shop, 'POST', '', ruleBody(overrides))
    t.equal(res.statusCode, 400, JSON.stringify(overrides).slice(0, 80))
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
    t.ok(res.json().error.details.some((d: { path: string }) => d.path === path), `names ${path}: ${res.body.slice(0, 300)}`)
  }
  const unknown = await ruleCall(app, shop, 'POST', '', ruleBody({ text: 'Hi {{ buyerName }}' }))
  t.match(unknown.json().error.message, /\{\{buyerName\}\}/, 'an unknown placeholder is named')
  t.same((await ruleCall(app, shop, 'GET')).json().data.rules, [], 'nothing was created')
})

t.test('the neutral values go with any trigger; unknown properties are ignored', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const rule = await createRule(app, shop, {
    keywords: [],
    cooldownSeconds: 0,
    afterMinutes: null,
    callSeller: false,
    color: 'red',
    text: '{{orderId}} {{productTitle}} {{quantity}} {{amount}} {{field:Email}}'
  })
  t.equal(rule.color, undefined)
  const claim = await createRule(app, shop, { trigger: 'claim.opened', text: '{{claimReason}} by {{ claimRespondBy }}' })
  t.equal(claim.trigger, 'claim.opened')
  const reminder = await createRule(app, shop, { trigger: 'order.unconfirmed', afterMinutes: 10 })
  t.equal(reminder.afterMinutes, 10)
  const keyword = await createRule(app, shop, {
    trigger: 'message.keyword', keywords: [' !help ', 'привет'], cooldownSeconds: 86_400, callSeller: true
  })
  t.same(keyword.keywords, ['!help', 'привет'], 'stored trimmed')
})

t.test('productIds must be the shop\'s products: 404 ORDER_NOT_FOUND', async (t) => {
  const app = await build(t)
  const [mine, other] = [await createShop(app, 'Mine'), await createShop(app, 'Other')]
  const theirs = await createProduct(app, other)
  const ours = await createProduct(app, mine)
  const res = await ruleCall(app, mine, 'POST', '', ruleBody({ productIds: [ours.id, theirs.id] }))
  t.equal(res.statusCode, 404)
  t.equal(res.json().error.code, 'ORDER_NOT_FOUND')
  const rule = await createRule(app, mine, { productIds: [ours.id] })
  const put = await ruleCall(app, mine, 'PUT', `/${rule.id}`, ruleBody({ productIds: [theirs.id] }))
  t.equal(put.statusCode, 404)
  t.same((await ruleCall(app, mine, 'GET', `/${rule.id}`)).json().data.rule.productIds, [ours.id], 'unchanged')
})

t.test('at most 100 rules a shop: the 101st is 409 CHAT_RULE_LIMIT; a deleted one no longer counts', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const ids: string[] = []
  for (let i = 0; i < 100; i++) ids.push((await createRule(app, shop, { name: `Rule ${i}` })).id)
  const res = await ruleCall(app, shop, 'POST', '', ruleBody())
  t.equal(res.statusCode, 409)
  t.equal(res.json().error.code, 'CHAT_RULE_LIMIT')
  const list = (await ruleCall(app, shop, 'GET')).json().data.rules
  t.equal(list.length, 100, 'the list holds all 100, not paged')
  await ruleCall(app, shop, 'DELETE', `/${ids[0]}`)
  t.equal((await ruleCall(app, shop, 'POST', '', ruleBody())).statusCode, 201)
})

t.test('Idempotency-Key on the create: the same rule once', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const headers = { 'idempotency-key': 'rule-1' }
  const first = await ruleCall(app, shop, 'POST', '', ruleBody(), headers)
  const again = await ruleCall(app, shop, 'POST', '', ruleBody(), headers)
  t.equal(first.statusCode, 201)
  t.equal(again.json().data.rule.id, first.json().data.rule.id)
  t.equal((await ruleCall(app, shop, 'GET')).json().data.rules.length, 1)
  const other = await ruleCall(app, shop, 'POST', '', ruleBody({ name: 'Else' }), headers)
  t.equal(other.statusCode, 422)
})

t.test('preview: the text rendered for one of the shop\'s orders, posting nothing', async (t) => {
  const app = await build(t)
  const [shop, other] = [await createShop(app, 'Mine'), await createShop(app, 'Other')]
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  const preview = (payload: Record<string, unknown>) => ruleCall(app, shop, 'POST', '/preview', payload)
  const res = await preview({
    trigger: 'order.paid',
    orderId: order.id,
    text: '  #{{ orderId }}: {{productTitle}} x{{quantity}} = {{amount}} RUB, to {{field:Email for delivery}}{{field:None}}  '
  })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().data.text, `#${order.id}: Steam key: Hades II x1 = 499.90 RUB, to buyer@example.com`)
  t.equal((await preview({ trigger: 'order.paid', orderId: order.id, text: 'Hi {{nope}}' })).statusCode, 400)
  const claimText = { trigger: 'claim.opened', orderId: order.id, text: '{{claimReason}} until {{claimRespondBy}}' }
  const noClaim = await preview(claimText)
  t.equal(noClaim.statusCode, 409)
  t.equal(noClaim.json().error.code, 'ORDER_INVALID_STATUS')
  await act(app, shop, order.id, 'take')
  await act(app, shop, order.id, 'deliver', { values: ['KEY-1'] })
  const claim = await openedClaim(app, order.id)
  t.equal((await preview(claimText)).json().data.text, `not_working until ${claim.respondBy}`)
  const foreign = await ruleCall(app, other, 'POST', '/preview', { trigger: 'order.paid', orderId: order.id, text: 'x' })
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'ORDER_NOT_FOUND')
  const messages = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}/messages`, headers: shop.headers })
  t.notOk(messages.json().data.messages.some((m: { senderRole: string }) => m.senderRole === 'seller'), 'posted nothing')
})
