// The layers and what may import what (docs/architecture.md, "One pattern"): read
// from the sources' import lines, so a change that makes a layer look back up, a
// route reach past its service, or two db/ feature folders import each other
// fails here instead of in a review; and no module imports itself through others.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The db/ feature folders in the one order they may import each other: a folder
 * imports only folders after it (and db/core/, db/tables.ts). The same list is in
 * docs/architecture.md.
 */
const DB_FOLDER_ORDER = [
  'portal', 'claims', 'chat-rules', 'orders', 'delivery-endpoint', 'webhooks', 'catalog', 'stock', 'events',
  'shops', 'stats'
]

/** The TypeScript files under `dir`, by their path from the repository. */
function sources (dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/**
 * The repository paths a file imports (relative imports only): every one, `import type` included,
 * or with `values` only those that remain at run time (`import type` and `export type` are erased).
 */
function importsOf (path: string, values = false): string[] {
  const text = readFileSync(join(root, path), 'utf8')
  const pattern = values ? /^(?:import|export) (?!type\b)[^;'"]*?from '(\.{1,2}\/[^']+)'/gm : /from '(\.{1,2}\/[^']+)'/g
  return [...text.matchAll(pattern)].map((m) => normalize(relative(root, join(root, path, '..', m[1]!))))
}

const layer = (path: string) => path.split('/')[0]!

t.test('db/ imports no layer above it: services, plugins, routes, lib', async (t) => {
  for (const file of sources('db')) {
    const upward = importsOf(file).filter((to) => ['services', 'plugins', 'routes', 'lib'].includes(layer(to)))
    t.same(upward, [], file)
  }
})

t.test('db/ feature folders import each other in one direction only', async (t) => {
  const folders = readdirSync(join(root, 'db')).filter((name) =>
    statSync(join(root, 'db', name)).isDirectory() && !['core', 'migrations'].includes(name))
  t.same([...folders].sort(), [...DB_FOLDER_ORDER].sort(), 'every feature folder has its place in the order')
  for (const file of sources('db')) {
    const from = file.split('/')[1]!
    const rank = DB_FOLDER_ORDER.indexOf(from)
    if (rank === -1) continue
    for (const to of importsOf(file)) {
      const [top, folder] = to.split('/')
      if (top !== 'db' || folder === undefined || folder === from || !DB_FOLDER_ORDER.includes(folder)) continue
      t.ok(DB_FOLDER_ORDER.indexOf(folder) > rank, `${file} imports ${to}: db/${from} may import only folders after it`)
    }
  }
})

t.test('routes reach a feature through its service, never db/', async (t) => {
  const files = [...sources('routes'), 'routes/media-files.ts'].filter((f, i, all) => all.indexOf(f) === i)
  for (const file of files) t.same(importsOf(file).filter((to) => layer(to) === 'db'), [], file)
  t.same(files.filter((file) => file.endsWith('/actions.ts')), [], 'no actions.ts beside the routes')
})

t.test('services never import routes or plugins', async (t) => {
  for (const file of sources('services')) {
    t.same(importsOf(file).filter((to) => ['routes', 'plugins'].includes(layer(to))), [], file)
  }
})

t.test('domain/ imports only domain/; schemas/ only domain/ and schemas/', async (t) => {
  for (const file of sources('domain')) t.same(importsOf(file).filter((to) => layer(to) !== 'domain'), [], file)
  for (const file of sources('schemas')) {
    t.same(importsOf(file).filter((to) => !['domain', 'schemas'].includes(layer(to))), [], file)
  }
})

t.test('lib/ imports no feature: services, routes', async (t) => {
  for (const file of sources('lib')) {
    t.same(importsOf(file).filter((to) => ['services', 'routes'].includes(layer(to))), [], file)
  }
})

/**
 * The db/ files that may open a transaction themselves: the stated exception of
 * docs/architecture.md (the purchase's pipelined transaction, the maintenance
 * batches, the webhook queue's outcome) and db/core/, which provides them. Every
 * other transaction is opened by a service (`app.db.transaction`).
 */
const DB_TRANSACTION_OWNERS = [
  'db/orders/purchase.ts', 'db/orders/reencrypt.ts', 'db/stock/reencrypt.ts', 'db/events/store.ts',
  'db/catalog/taxonomy.ts', 'db/webhooks/queue.ts'
]

t.test('db/ opens no transaction outside its stated exception', async (t) => {
  const opening = sources('db').filter((path) => !path.startsWith('db/core/') &&
    /\.transaction\(|\bsql\.begin\(/.test(readFileSync(join(root, path), 'utf8')))
  t.same(opening.filter((path) => !DB_TRANSACTION_OWNERS.includes(path)), [],
    'a db/ function takes the transaction (tx: Tx) its service opens')
})

t.test('no import circle: no module reaches itself through its value imports', async (t) => {
  const files = [...['db', 'domain', 'lib', 'plugins', 'routes', 'schemas', 'services'].flatMap(sources),
    ...readdirSync(root).filter((name) => name.endsWith('.ts'))]
  const graph = new Map(files.map((file) => [file,
    importsOf(file, true).map((to) => to.replace(/\.js$/, '.ts')).filter((to) => files.includes(to))]))
  t.ok(graph.size > 200, `${graph.size} modules read`)
  // Depth-first, with the path so far: a module met again on its own path closes a circle.
  const done = new Set<string>()
  const circles: string[] = []
  const visit = (file: string, path: string[]) => {
    if (path.includes(file)) { circles.push([...path.slice(path.indexOf(file)), file].join(' -> ')); return }
    if (done.has(file)) return
    for (const to of graph.get(file) ?? []) visit(to, [...path, file])
    done.add(file)
  }
  for (const file of files) visit(file, [])
  t.same(circles, [], 'import circles')
})
