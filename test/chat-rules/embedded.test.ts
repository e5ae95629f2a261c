// Chat rules on the embedded default (PGlite, no Redis): the same firing as on
// Postgres — an event's rule, the greeting and a keyword answer, a reminder.
import t from 'tap'
import { buildEmbedded, createShop } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { orderIn, postAsBuyer } from '../fixtures/orders.js'
import { createRule, ruleMessages } from '../fixtures/chat-rules.js'
import { run } from '../../db/core/sql.js'
import { until } from '../fixtures/until.js'

t.test('rules fire on the embedded database', async (t) => {
  const app = await buildEmbedded(t, { CHAT_RULE_SWEEP_INTERVAL_MS: 50 })
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  await createRule(app, shop, { name: 'Thanks', trigger: 'order.delivered', text: 'Thanks for {{orderId}}' })
  await createRule(app, shop, { name: 'Hi', trigger: 'message.first', text: 'Hello' })
  await createRule(app, shop, { name: 'Help', trigger: 'message.keyword', keywords: ['!help'], text: 'Help' })
  await createRule(app, shop, { name: 'Confirm', trigger: 'order.unconfirmed', afterMinutes: 10, text: 'Confirm?' })
  const order = await orderIn(app, shop, product, 'awaiting_confirmation')
  t.equal((await postAsBuyer(app, order.id, '!help')).statusCode, 201)
  t.equal((await postAsBuyer(app, order.id, '!help')).statusCode, 201)
  t.same((await ruleMessages(app, shop, order.id)).map((m) => m.text), [`Thanks for ${order.id}`, 'Hello', 'Help', 'Help'])
  await run(app.db, 'update chat_rule_reminders set due_at = now()')
  await until(async () => (await ruleMessages(app, shop, order.id)).length >= 5, 10_000, 50)
  t.same((await ruleMessages(app, shop, order.id)).map((m) => m.text).at(-1), 'Confirm?', 'the reminder')
})
