// Answers that show a secret once are never cached (docs/security.md): found by
// walking both OpenAPI documents for 2xx answers that hold a secret, then calling
// each such operation for real — no hand list of routes.
import t from 'tap'
import { build, createShop, internalHeaders } from '../helper.js'

type Json = Record<string, any>

/** The properties of `schema` (refs resolved in `components`) as [name, schema] pairs, nested ones too. */
function properties (schema: Json | undefined, components: Json, seen = new Set<Json>()): Array<[string, Json]> {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return []
  seen.add(schema)
  if (typeof schema.$ref === 'string') return properties(components[schema.$ref.split('/').pop()!], components, seen)
  const own = Object.entries<Json>(schema.properties ?? {})
  const nested = [...own.map(([, child]) => child), schema.items, ...(schema.allOf ?? []), ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? [])]
  return [...own, ...nested.flatMap((child) => properties(child, components, seen))]
}

/** Words that say a property holds a secret: its name, or a description of a link that carries a token. */
const looksSecret = ([name, schema]: [string, Json]) =>
  /secret|token|password/i.test(name) || /token=|shown only/i.test(schema.description ?? '')

t.test('every answer that holds a secret is sent with Cache-Control: no-store', async (t) => {
  const app = await build(t, { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true })
  const shop = await createShop(app)
  const operations: Array<{ path: string, method: string, operation: Json }> = []
  for (const document of [app.swagger() as Json, app.internalSwagger() as Json]) {
    const components = document.components?.schemas ?? {}
    for (const [path, methods] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(methods)) {
        const answers = Object.entries<Json>(operation.responses ?? {}).filter(([status]) => status.startsWith('2'))
        const held = answers.flatMap(([, answer]) => properties(answer.content?.['application/json']?.schema, components))
        for (const property of held.filter(looksSecret)) {
          t.equal(property[1]['x-secret'], true, `${method} ${path}: \`${property[0]}\` is marked x-secret`)
        }
        if (held.some(([, schema]) => schema['x-secret'] === true)) operations.push({ path, method, operation })
      }
    }
  }
  t.ok(operations.length >= 6, `answers with a secret: ${operations.map((o) => `${o.method} ${o.path}`).join(', ')}`)

  // Creations first, so that a rotation finds what it rotates; `{id}` is the id the creation answered.
  operations.sort((a, b) => a.path.length - b.path.length)
  const created = new Map<string, string>()
  for (const { path, method, operation } of operations) {
    const url = path.replace('{shopId}', shop.shopId)
      .replace('{id}', created.get(path.replace(/\/\{id\}\/[^/]+$/, '')) ?? 'none')
    const content = operation.requestBody?.content?.['application/json']
    const example = content?.example ?? Object.values<Json>(content?.examples ?? {})[0]?.value
    const res = await app.inject({
      method: method.toUpperCase() as 'POST',
      url,
      headers: path.startsWith('/internal/') ? internalHeaders : shop.headers,
      ...(operation.requestBody ? { payload: example ?? {} } : {})
    })
    if (!t.ok(res.statusCode >= 200 && res.statusCode < 300, `${method} ${path} answers 2xx`)) t.comment(res.body)
    t.equal(res.headers['cache-control'], 'no-store', `${method} ${path}: no-store`)
    const first = Object.values<Json>(res.json().data)[0]
    if (typeof first?.id === 'string') created.set(path, first.id)
  }

  const replayed = [0, 1].map(() => app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { ...shop.headers, 'idempotency-key': 'secret-answers-replay' },
    payload: { url: 'https://bot.example.com/replayed' }
  }))
  for (const res of await Promise.all(replayed)) {
    t.equal(res.headers['cache-control'], 'no-store', `the idempotent replay too (${res.statusCode})`)
  }
  const plain = await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: shop.headers })
  t.equal(plain.statusCode, 200)
  t.not(plain.headers['cache-control'], 'no-store', 'an answer without a secret is left alone')
})
