// Inputs JavaScript, Ajv and Postgres disagree about (non-finite numbers, date-times
// one side cannot hold) are refused with 400 VALIDATION_ERROR wherever they appear:
// query strings and JSON bodies. Never a 500.
import t from 'tap'
import { build, createShop, internalHeaders } from '../helper.js'
import { createProduct, productInput } from '../fixtures/products.js'
import { buy } from '../fixtures/orders.js'

t.test('non-finite numbers and disputed date-times are 400, never 500', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await buy(app, product)

  const nonFinite = ['1e309', 'Infinity', '-1e309', '1e400', '-Infinity', 'NaN']
  const urls: string[] = []
  for (const value of nonFinite) {
    for (const name of ['page', 'limit']) {
      urls.push(`/v1/orders?${name}=${value}`, `/v1/products?${name}=${value}`)
    }
    urls.push(`/v1/orders/${order.id}/messages?limit=${value}`)
  }
  for (const cursor of ['2026-11-22T23:59:60Z', '9999-12-31T23:59:59-23:59', '9999-12-31T23:59:59-15:59', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z']) {
    urls.push(`/v1/orders/${order.id}/messages?cursor=${encodeURIComponent(cursor)}`)
  }
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url, headers: shop.headers })
    t.equal(res.statusCode, 400, `${url}: ${res.body.slice(0, 120)}`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', url)
  }

  const bodies: Array<[string, string, string]> = [
    ['PUT', `/internal/v1/shops/${shop.shopId}/currency-rates/USD`, '{"rate": 1e400}'],
    ['POST', '/internal/v1/orders', `{"productId": "${product.id}", "quantity": 1e400, "fieldValues": []}`],
    ['POST', '/v1/products', JSON.stringify(productInput(product.categoryId)).replace('"price":499.9', '"price":1e400')]
  ]
  for (const [method, url, payload] of bodies) {
    const headers = { ...(url.startsWith('/internal') ? internalHeaders : shop.headers), 'content-type': 'application/json' }
    const res = await app.inject({ method: method as 'PUT' | 'POST', url, headers, payload })
    t.equal(res.statusCode, 400, `${url}: ${res.body.slice(0, 160)}`)
    t.equal(res.json().error.code, 'VALIDATION_ERROR')
  }

  const fine = await app.inject({ method: 'GET', url: `/v1/orders/${order.id}/messages?cursor=${encodeURIComponent('2026-11-22 13:00:00.1234+03:00')}`, headers: shop.headers })
  t.equal(fine.statusCode, 200, fine.body)
  t.equal(fine.json().data.nextCursor, '2026-11-22T10:00:00.123Z', 'an accepted cursor is echoed as the instant in the API\'s own form')
})
