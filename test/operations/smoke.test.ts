import t from 'tap'
import { build, createShop } from '../helper.js'

t.test('boots and authenticates', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const res = await app.inject({ method: 'GET', url: '/v1/categories', headers: shop.headers })
  t.equal(res.statusCode, 200, res.body)
  t.ok(res.json().data.categories.length > 10)
  t.ok(res.headers['x-request-id'])
  t.ok(res.headers['ratelimit-limit'])
  const bad = await app.inject({ method: 'GET', url: '/v1/categories' })
  t.equal(bad.statusCode, 401, bad.body)
  const docs = await app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(docs.statusCode, 200)
})
