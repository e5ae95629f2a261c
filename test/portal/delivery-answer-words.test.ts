// The delivery endpoint's test call on the portal (docs/portal.md): what is wrong
// with the endpoint's answer is said in the page's language, from the problem's kind
// (domain/delivery-answer.ts), never in the API's English.
import t from 'tap'
import type { ServerResponse } from 'node:http'
import { build, createShop } from '../helper.js'
import { enterPortal, form } from '../fixtures/portal.js'
import { localJustInTime, putDeliveryEndpoint } from '../fixtures/delivery-endpoint.js'
import { stockProduct } from '../fixtures/stock.js'
import { startReceiver } from '../fixtures/webhook-receiver.js'

t.test('the test call\'s problems with the answer, in Russian and in English', async (t) => {
  const app = await build(t, localJustInTime)
  const shop = await createShop(app)
  const product = await stockProduct(app, shop, { autoDelivery: 'endpoint' })
  const receiver = await startReceiver(t)
  receiver.answer = () => (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ values: [1, ''] }))
  }
  await putDeliveryEndpoint(app, shop, receiver.url)
  const expected = {
    ru: ['Значений не текстом: 1.', 'Пустых значений: 1.'],
    en: ['Values that are not text: 1.', 'Empty values: 1.']
  }
  for (const locale of ['ru', 'en'] as const) {
    const session = await enterPortal(app, shop.shopId, { locale })
    const body = form({ productId: product.id, quantity: '1' })
    const tested = await app.inject({
      method: 'POST',
      url: '/portal/delivery-endpoint/test',
      headers: { ...body.headers, ...session.headers },
      payload: body.payload
    })
    t.equal(tested.statusCode, 200)
    for (const sentence of expected[locale]) t.match(tested.body, sentence, `${locale}: ${sentence}`)
    t.notMatch(tested.body, /of the values is/, `${locale}: not the API's wording`)
  }
})
