// A claim id that names no claim of the shop — unknown, another shop's, or not even
// well-formed — is 404 NOT_FOUND on every claim route of the two documents (seller and operator) (docs/claims.md),
// never the orders' ORDER_NOT_FOUND, and changes nothing.
import t from 'tap'
import { act, orderIn } from '../fixtures/orders.js'
import { createProduct } from '../fixtures/products.js'
import { openedClaim, snapshot } from '../fixtures/claims.js'
import { build, createShop, internalHeaders } from '../helper.js'

/** A valid body for each action, so only the id can be wrong. */
const bodies: Record<string, object | undefined> = {
  replace: { values: ['NEW-1'] },
  refund: {},
  reject: { note: 'It works' },
  escalate: {},
  resolve: { outcome: 'reject' }
}

t.test('every claim route answers NOT_FOUND for a malformed, unknown or other shop\'s claim id', async (t) => {
  const app = await build(t)
  const shop = await createShop(app)
  const other = await createShop(app)
  const product = await createProduct(app, shop)
  const order = await orderIn(app, shop, product, 'processing')
  t.equal((await act(app, shop, order.id, 'deliver', { value: 'V-1' })).statusCode, 200)
  const claim = await openedClaim(app, order.id)

  const paths = { ...app.swagger().paths, ...app.internalSwagger().paths } as Record<string, Record<string, unknown>>
  const routes = Object.entries(paths)
    .filter(([path]) => /\/claims\/\{id\}/.test(path))
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ path, method })))
  t.ok(routes.length >= 6, `the document's claim routes: ${routes.map((r) => `${r.method} ${r.path}`).join(', ')}`)

  const before = await snapshot(app, shop, order.id, product.id)
  for (const { path, method } of routes) {
    const internal = path.startsWith('/internal/')
    const action = path.split('/').at(-1)!
    const ids = ['not-a-claim', '12345', `${claim.id}x`, '00000000-0000-4000-8000-000000000000',
      ...(internal ? [] : [claim.id])]
    for (const id of ids) {
      const headers = internal ? internalHeaders : (id === claim.id ? other.headers : shop.headers)
      const res = await app.inject({
        method: method.toUpperCase() as 'GET' | 'POST',
        url: path.replace('{id}', encodeURIComponent(id)),
        headers,
        ...(method === 'post' ? { payload: bodies[action] ?? {} } : {})
      })
      t.equal(res.statusCode, 404, `${method} ${path} with ${id}: ${res.body}`)
      t.equal(res.json().error.code, 'NOT_FOUND', `${method} ${path} with ${id}`)
    }
  }
  t.same(await snapshot(app, shop, order.id, product.id), before, 'nothing changed')
})
