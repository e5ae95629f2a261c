// Delivered values at rest (docs/security.md): after a whole life of orders —
// delivered from stock (at the purchase and by filling a waiting order), by
// the delivery endpoint, by a bot's deliver with its idempotent retry, a value
// replaced through a claim, then cancelled or confirmed, every event sent as a webhook — neither a pg_dump of
// the database nor the service's Redis keys hold any value or its first five
// characters, while every response, feed page and webhook body carries them
// exactly as a plain stored order gives them.
import t from 'tap'
import postgres from 'postgres'
import { Webhook } from 'standardwebhooks'
import { act, buy, confirm } from '../fixtures/orders.js'
import { addValues, stockKey, stockProduct } from '../fixtures/stock.js'
import { endpointProduct, feed, getOrder, localJustInTime, putDeliveryEndpoint, valuesAnswer, waitForRequest } from '../fixtures/delivery-endpoint.js'
import { createEndpoint } from '../fixtures/webhooks.js'
import { claimAction, openedClaim } from '../fixtures/claims.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'
import { testRedisPrefix } from '../fixtures/databases.js'
import { leaked, pgDump, redisSnapshot, secretValue } from '../fixtures/secrets-at-rest.js'
import { build, createShop, fileDatabaseUrl } from '../helper.js'
import { webhookBody } from '../../services/webhooks/body.js'

t.test('a whole life of orders leaves no value in a database dump or in Redis', async (t) => {
  const stockValues = [secretValue('stock-1'), secretValue('stock-2'), secretValue('stock-3')]
  const endpointValues = [secretValue('endpoint-1'), secretValue('endpoint-2')]
  const botValues = [secretValue('bot-1'), secretValue('bot-2')]
  const cancelledValue = secretValue('bot-cancelled')
  const replacement = secretValue('claim-replacement')
  const all = [...stockValues, ...endpointValues, ...botValues, cancelledValue, replacement]
  const afterClaim = [botValues[0], replacement]

  const app = await build(t, { ...localJustInTime, VALUES_ENCRYPTION_KEY: stockKey() })
  const shop = await createShop(app)
  const webhooks = await startReceiver(t)
  const { secret } = await createEndpoint(app, shop, { url: webhooks.url })
  const supplier = await startReceiver(t)
  supplier.answer = () => valuesAnswer(endpointValues)
  await putDeliveryEndpoint(app, shop, supplier.url)

  // From stock: a purchase waiting for stock is filled by the upload, the next takes two at once.
  const fromStock = await stockProduct(app, shop)
  const waiting = await buy(app, fromStock)
  t.equal(waiting.status, 'paid')
  t.match(await addValues(app, shop, fromStock.id, stockValues), { added: 3, filledOrders: 1 })
  const instant = await buy(app, fromStock, { quantity: 2 })
  t.same(instant.deliveredValues, stockValues.slice(1), 'the purchase answers with its values')
  t.equal(instant.deliveredValue, stockValues.slice(1).join('\n'))

  // From the delivery endpoint.
  const justInTime = await buy(app, await endpointProduct(app, shop))
  await waitForRequest(app, shop, justInTime.id, (r) => r.status === 'succeeded')

  // By a bot, with an idempotent retry replayed byte for byte; then confirmed by the buyer.
  const manual = await stockProduct(app, shop, { autoDelivery: 'off' })
  const byBot = await buy(app, manual)
  t.equal((await act(app, shop, byBot.id, 'take', undefined, { 'idempotency-key': `take-${byBot.id}` })).statusCode, 200)
  const deliverKey = { 'idempotency-key': `deliver-${byBot.id}` }
  const delivered = await act(app, shop, byBot.id, 'deliver', { values: botValues }, deliverKey)
  t.equal(delivered.statusCode, 200)
  t.same(delivered.json().data.order.deliveredValues, botValues)
  const replayed = await act(app, shop, byBot.id, 'deliver', { values: botValues }, deliverKey)
  t.equal(replayed.headers['idempotency-replayed'], 'true')
  t.equal(replayed.body, delivered.body, 'the retry gets the first response, byte for byte')
  // The buyer reports the second value; the seller replaces it (idempotent too); then the buyer confirms.
  const claim = await openedClaim(app, byBot.id, { reason: 'not_working', text: 'The second one fails', valueIndexes: [1] })
  const replaceKey = { 'idempotency-key': `replace-${claim.id}` }
  const replaced = await claimAction(app, shop, claim.id, 'replace', { values: [replacement] }, replaceKey)
  t.equal(replaced.statusCode, 200, replaced.body)
  t.same(replaced.json().data.order.deliveredValues, afterClaim)
  t.equal((await claimAction(app, shop, claim.id, 'replace', { values: [replacement] }, replaceKey)).body, replaced.body)
  t.equal((await confirm(app, byBot.id)).statusCode, 200)

  // Delivered, then cancelled (with an idempotency key: its response carries the value too).
  const cancelled = await buy(app, manual)
  await act(app, shop, cancelled.id, 'take')
  await act(app, shop, cancelled.id, 'deliver', { value: cancelledValue })
  const cancel = await act(app, shop, cancelled.id, 'cancel', { reason: 'changed mind' }, { 'idempotency-key': `cancel-${cancelled.id}` })
  t.same(cancel.json().data.order.deliveredValues, [cancelledValue])

  // Every response that reads an order shows its values.
  t.same((await getOrder(app, shop, waiting.id)).deliveredValues, stockValues.slice(0, 1))
  t.same((await getOrder(app, shop, justInTime.id)).deliveredValues, endpointValues)
  const list = await app.inject({ method: 'GET', url: '/v1/orders?status=completed,cancelled,awaiting_confirmation&limit=100', headers: shop.headers })
  const listed = new Map(list.json().data.orders.map((o: { id: string, deliveredValues: string[] }) => [o.id, o.deliveredValues]))
  t.same(listed.get(byBot.id), afterClaim)
  t.same(listed.get(instant.id), stockValues.slice(1))

  // The feed carries them; every event goes out as a signed webhook whose body is the feed's data.
  const events = await feed(app, shop)
  const deliveredEvents = events.filter((e) => e.type === 'order.delivered')
  t.same(deliveredEvents.map((e) => e.data.order.deliveredValues).flat().sort(), all.filter((v) => v !== replacement).sort())
  t.same(events.find((e) => e.type === 'order.updated')?.data.order.deliveredValues, afterClaim, 'the claim\'s order.updated')
  t.same(events.find((e) => e.type === 'order.completed')?.data.order.deliveredValues, afterClaim)
  t.same(events.find((e) => e.type === 'order.cancelled')?.data.order.deliveredValue, cancelledValue)
  // Claims' own kinds (claim.*) carry no value: their webhooks are the claims' tests' to check.
  const pushed = events.filter((e) => !e.type.startsWith('claim.'))
  const missing = () => pushed.filter((e) => !webhooks.delivered().has(e.id)).map((e) => e.type)
  await webhooks.waitFor(() => missing().length === 0, 30_000, 'a webhook for every event')
    .catch((err: Error) => { throw new Error(`${err.message}; not delivered: ${missing().join(', ')}`) })
  const verifier = new Webhook(secret)
  const rows = await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })
  for (const event of rows.json().data.events as Array<{ id: string, type: string, createdAt: string, data: unknown }>) {
    if (event.type.startsWith('claim.')) continue
    const attempt = webhooks.delivered().get(event.id)!
    verifier.verify(attempt.body, attempt.headers as Record<string, string>)
    t.equal(attempt.body, webhookBody(event.type, event.createdAt, event.data), `the webhook of ${event.type} is the feed's event`)
  }

  // At rest: nothing.
  const databaseUrl = await fileDatabaseUrl()
  const dump = await pgDump(databaseUrl)
  t.ok(dump.includes('COPY public.orders'), 'the dump has the orders')
  t.same(leaked(dump, all), [], 'no value, nor its first five characters, in pg_dump')
  const redis = await redisSnapshot(testRedisPrefix(new URL(databaseUrl).pathname.slice(1)))
  t.ok(redis.text.includes('idem:'), 'the idempotency records are in Redis')
  t.same(leaked(redis.text, all), [], 'no value, nor its first five characters, in the service\'s Redis keys')

  // The feed reads exactly as it does for orders stored plain: the same bytes.
  const sealedPage = rows.body
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  for (const event of rows.json().data.events as Array<{ id: string, data: unknown }>) {
    await sql`update events set data = ${sql.json(event.data as never)} where id = ${event.id}`
  }
  const [{ plain }] = await sql`select count(*)::int as plain from events where data->'order'->'deliveredValues' <> '[]'::jsonb
    and jsonb_typeof(data->'order'->'deliveredValues') = 'array'`
  t.ok(plain > 0, 'the events now hold their values plain')
  t.not(leaked(await pgDump(databaseUrl), all).length, 0, 'and the dump shows them: the check above can fail')
  const plainPage = await app.inject({ method: 'GET', url: '/v1/events?limit=100', headers: shop.headers })
  t.equal(sealedPage, plainPage.body, 'byte for byte the page of plain events')
})
