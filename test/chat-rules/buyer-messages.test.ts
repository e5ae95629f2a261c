// A buyer's message and the rules' answers (docs/chat-rules.md): the greeting on
// the very first message, one keyword answer per message by priority with
// cooldowns, `chat.seller_called`, a message no keyword matched posted alone unless
// a greeting is due, and the same under concurrency, on two instances.
import t from 'tap'
import { build, buildEmbedded, createShop } from '../helper.js'
import { createProduct } from '../fixtures/products.js'
import { buy, postAsBuyer } from '../fixtures/orders.js'
import { readAll } from '../fixtures/events.js'
import { chat, createRule, ruleCall, ruleMessages } from '../fixtures/chat-rules.js'
import { run } from '../../db/core/sql.js'

t.test('the first message is greeted once; one keyword answer a message, by priority, with cooldowns', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  const greeting = await createRule(app, shop, { name: 'Hi', trigger: 'message.first', text: 'Hello! Order {{orderId}}' })
  const help = await createRule(app, shop, {
    name: 'Help', trigger: 'message.keyword', keywords: ['!help', '/start'], text: 'Commands: !seller', priority: 1
  })
  const word = await createRule(app, shop, {
    name: 'Key', trigger: 'message.keyword', keywords: ['ключ', 'key'], text: 'About keys', priority: 2, cooldownSeconds: 3600
  })
  const fallback = await createRule(app, shop, {
    name: 'Also key', trigger: 'message.keyword', keywords: ['KEY'], text: 'Second key rule', priority: 3
  })
  const answers = async (text: string) => {
    const before = (await ruleMessages(app, shop, order.id)).length
    const res = await postAsBuyer(app, order.id, text)
    t.equal(res.statusCode, 201)
    t.equal(res.json().data.message.ruleId, null)
    return (await ruleMessages(app, shop, order.id)).slice(before).map((m) => m.ruleId)
  }
  t.same(await answers('!help'), [greeting.id, help.id], 'the greeting, then the command')
  t.same(await answers('  !HELP   me  '), [help.id], 'a command folded, followed by white space; no second greeting')
  t.same(await answers('!helpme'), [], 'a command is not a prefix of a word')
  t.same(await answers('Ключ не работает'), [word.id])
  t.same(await answers('the key again'), [fallback.id], 'the first rule is cooling down: the next by priority answers')
  t.same(await answers('keyboard, monkey, key_'), [fallback.id], '"_" is a boundary; letters are not')
  t.same(await answers('ＫＥＹ!'), [fallback.id], 'NFKC folding')
  t.same(await answers('nothing here'), [])
  const rule = (await ruleCall(app, shop, 'GET', `/${fallback.id}`)).json().data.rule
  t.equal(rule.firedCount, 3)
  const texts = (await chat(app, shop, order.id)).map((m) => m.text)
  t.equal(texts[1], `Hello! Order ${order.id}`)
})

t.test('callSeller: chat.seller_called with the buyer\'s message right after the answer', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  const rule = await createRule(app, shop, {
    name: 'Seller', trigger: 'message.keyword', keywords: ['!seller'], text: 'Calling the seller', callSeller: true
  })
  const posted = (await postAsBuyer(app, order.id, '!seller please')).json().data.message
  const { events } = await readAll(app, shop)
  const types = events.map((e) => e.type)
  t.same(types.slice(-3), ['message.created', 'message.created', 'chat.seller_called'])
  t.same(events.at(-1)!.data, { orderId: order.id, message: posted, ruleId: rule.id })
  t.equal(events.at(-2)!.data.message.ruleId, rule.id)
  t.same(events.at(-3)!.data, { orderId: order.id, message: posted }, 'the buyer\'s own message.created comes first')
})

t.test('rules changed before every post: matched again five times, then 503 and nothing posted', async (t) => {
  // Its own embedded database: the post is wrapped so that the shop's rules change (their
  // version moves, as another instance's edit moves it) just before each post.
  const app = await buildEmbedded(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  await createRule(app, shop, { name: 'Help', trigger: 'message.keyword', keywords: ['!help'], text: 'Commands: !seller' })
  await run(app.db, 'alter function chat_rules_buyer_post(uuid, text, bigint, uuid[]) rename to chat_rules_buyer_post_unwrapped')
  await run(app.db, `create function chat_rules_buyer_post(p_order uuid, p_text text, p_version bigint, p_candidates uuid[])
    returns jsonb language plpgsql as $$
    begin
      update shops set chat_rules_version = chat_rules_version + 1 where id = (select shop_id from orders where id = p_order);
      return chat_rules_buyer_post_unwrapped(p_order, p_text, p_version, p_candidates);
    end $$`)
  const res = await postAsBuyer(app, order.id, '!help')
  t.equal(res.statusCode, 503)
  t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
  t.match(res.json().error.message, /chat rules changed/)
  t.same(await chat(app, shop, order.id), [], 'neither the message nor an answer posted')
})

t.test('rule messages never fire rules; messages of an order without automation are not answered', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const hidden = await createProduct(app, shop, { external: false })
  await createRule(app, shop, { name: 'Echo', trigger: 'message.keyword', keywords: ['echo'], text: 'echo' })
  await createRule(app, shop, { name: 'Hi', trigger: 'message.first', text: 'echo hello' })
  const order = await buy(app, product)
  await postAsBuyer(app, order.id, 'echo')
  t.equal((await ruleMessages(app, shop, order.id)).length, 2, 'the answers did not answer themselves')
  const seller = await app.inject({ method: 'POST', url: `/v1/orders/${order.id}/messages`, headers: shop.headers, payload: { text: 'echo' } })
  t.equal(seller.statusCode, 201)
  t.equal((await ruleMessages(app, shop, order.id)).length, 2, 'the seller\'s own message is not answered')
  const invisible = await buy(app, hidden)
  t.equal((await postAsBuyer(app, invisible.id, 'echo')).statusCode, 201)
  const res = await postAsBuyer(app, '00000000-0000-4000-8000-000000000000', 'echo')
  t.equal(res.statusCode, 404)
})

t.test('a rule enabled after the first message never greets that chat', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)
  await postAsBuyer(app, order.id, 'hello?')
  await createRule(app, shop, { name: 'Hi', trigger: 'message.first', text: 'Hello' })
  await postAsBuyer(app, order.id, 'anyone?')
  t.same(await ruleMessages(app, shop, order.id), [])
})

t.test('two buyer messages at once on one order, on two instances: one answer each, the greeting once', async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const shop = await createShop(one)
  const product = await createProduct(one, shop)
  await createRule(one, shop, { name: 'Hi', trigger: 'message.first', text: 'Hello' })
  await createRule(one, shop, { name: 'Help', trigger: 'message.keyword', keywords: ['!help'], text: 'Help' })
  for (let round = 0; round < 5; round++) {
    const order = await buy(one, product)
    const results = await Promise.all([
      postAsBuyer(one, order.id, '!help'), postAsBuyer(two, order.id, '!help'), postAsBuyer(one, order.id, '!help')
    ])
    t.same(results.map((r) => r.statusCode), [201, 201, 201])
    const texts = (await ruleMessages(one, shop, order.id)).map((m) => m.text)
    t.same(texts.filter((text) => text === 'Hello'), ['Hello'], `round ${round}: greeted once`)
    t.equal(texts.filter((text) => text === 'Help').length, 3, `round ${round}: one answer each`)
    const chatOrder = (await chat(one, shop, order.id)).map((m) => m.ruleId === null ? 'buyer' : m.text)
    t.equal(chatOrder.indexOf('Hello'), 1, 'the greeting answers the first message')
  }
})

t.test('rules changed on another instance between two messages of a chat: the next one is matched against the new rules', async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const shop = await createShop(one)
  const product = await createProduct(one, shop)
  const order = await buy(one, product)
  const key = await createRule(one, shop, { name: 'Key', trigger: 'message.keyword', keywords: ['key'], text: 'About keys' })
  const answered = async (text: string) => {
    const before = (await ruleMessages(one, shop, order.id)).length
    t.equal((await postAsBuyer(one, order.id, text)).statusCode, 201)
    return (await ruleMessages(one, shop, order.id)).slice(before).map((m) => m.text)
  }
  t.same(await answered('my key?'), ['About keys'], 'instance one knows the order\'s shop and its rules now')
  const replaced = await ruleCall(two, shop, 'PUT', `/${key.id}`,
    { name: 'Code', trigger: 'message.keyword', keywords: ['code'], text: 'About codes' })
  t.equal(replaced.statusCode, 200)
  t.same(await answered('my key?'), [], 'the old keyword no longer answers')
  t.same(await answered('my code?'), ['About codes'], 'the new one does')
  t.equal((await ruleCall(two, shop, 'DELETE', `/${key.id}`)).statusCode, 200)
  t.same(await answered('my code?'), [], 'a deleted rule never answers')
  const posted = (await chat(one, shop, order.id)).filter((m) => m.senderRole === 'buyer').map((m) => m.text)
  t.same(posted, ['my key?', 'my key?', 'my code?', 'my code?'], 'every message posted once')
})

t.test('a message no keyword matches: posted alone, unless rules made on another instance answer it', async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const shop = await createShop(one)
  const product = await createProduct(one, shop)
  await createRule(one, shop, { name: 'Key', trigger: 'message.keyword', keywords: ['key'], text: 'About keys' })
  const answered = async (orderId: string, text: string) => {
    const before = (await ruleMessages(one, shop, orderId)).length
    const res = await postAsBuyer(one, orderId, text)
    t.equal(res.statusCode, 201)
    t.equal(res.json().data.message.text, text)
    return (await ruleMessages(one, shop, orderId)).slice(before).map((m) => m.text)
  }
  const first = await buy(one, product)
  t.same(await answered(first.id, 'hello'), [], 'instance one compiled the shop\'s rules: no greeting, no "code"')
  t.same(await answered(first.id, 'a key?'), ['About keys'])
  // Instance one's compiled rules say no keyword matches "code" and the shop greets no one; two changes both.
  t.equal((await ruleCall(two, shop, 'POST', '', { name: 'Hi', trigger: 'message.first', text: 'Hello' })).statusCode, 201)
  t.equal((await ruleCall(two, shop, 'POST', '',
    { name: 'Code', trigger: 'message.keyword', keywords: ['code'], text: 'About codes' })).statusCode, 201)
  t.same(await answered(first.id, 'my code?'), ['About codes'], 'matched against the new rules')
  t.same(await answered(first.id, 'still there?'), [], 'a chat with a buyer\'s message before the greeting is not greeted')
  const second = await buy(one, product)
  t.same(await answered(second.id, 'hello'), ['Hello'], 'a new chat is greeted')
  t.same(await answered(second.id, 'hello again'), [], 'once')
  const events = (await readAll(one, shop)).events.filter((e) => e.type === 'message.created' && e.data.orderId === second.id)
  t.same(events.map((e) => e.data.message.text), ['hello', 'Hello', 'hello again'], 'each message\'s event once, in order')
})
