// The portal's three static files (docs/portal.md): htmx, portal.js and
// portal.css, each served under a name carrying its content's hash
// (`portal.3f2a….css`), cached by browsers for a year as immutable
// (`Cache-Control: public, max-age=31536000, immutable`): a changed file is a
// new name, which the pages name (it.assets). Compressed on the way out by
// @fastify/compress (brotli or gzip, as the browser accepts; Vary:
// Accept-Encoding): with immutable names a browser fetches each once, so
// compressing per response costs little, and a fresh clone needs no build step.
// Only these files are compressed: the pages carry the CSRF token and secrets
// (BREACH, docs/security.md).
import compress from '@fastify/compress'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const htmxDir = join(dirname(createRequire(import.meta.url).resolve('htmx.org/package.json')), 'dist')
const SOURCES = [
  { file: 'htmx.min.js', root: htmxDir },
  { file: 'portal.js', root: join(here, 'static') },
  { file: 'portal.css', root: join(here, 'static') }
] as const
export type AssetName = typeof SOURCES[number]['file']

const YEAR_MS = 365 * 24 * 3600_000

export interface PortalAssets {
  /** Each file's address, for the pages: `/portal/assets/<name>.<hash><ext>`. */
  urls: Record<AssetName, string>
  /** The hashed name → the file. */
  files: Map<string, { file: string; root: string }>
}

/** The files' hashed names, from their content as it is now (read once, when the portal starts). */
export function hashedAssets (): PortalAssets {
  const urls = {} as Record<AssetName, string>
  const files = new Map<string, { file: string; root: string }>()
  for (const { file, root } of SOURCES) {
    const hash = createHash('sha256').update(readFileSync(join(root, file))).digest('hex').slice(0, 16)
    const ext = extname(file)
    const name = `${file.slice(0, -ext.length)}.${hash}${ext}`
    urls[file] = `/portal/assets/${name}`
    files.set(name, { file, root })
  }
  return { urls, files }
}

export default async function assets (fastify: FastifyInstance, options: { assets: PortalAssets }) {
  await fastify.register(compress, { encodings: ['br', 'gzip'] })
  await fastify.register(fastifyStatic, { serve: false, root: join(here, 'static') })
  fastify.get<{ Params: { name: string } }>('/assets/:name', async function portalAsset (request, reply) {
    const asset = options.assets.files.get(request.params.name)
    if (!asset) return reply.callNotFound()
    return reply.sendFile(asset.file, asset.root, { immutable: true, maxAge: YEAR_MS, cacheControl: true })
  })
}
