// Public image files at GET /media/<id>.<ext> (no key): the bytes with their
// sniffed Content-Type, nosniff, a strong ETag (SHA-256) and a year of immutable
// caching, since a file never changes under its id. Served from memory once read
// (lib/media-file-cache.ts) and limited per client IP (PUBLIC_RATE_LIMIT_MAX
// per RATE_LIMIT_WINDOW_MS, with the RateLimit-* headers), so nobody can turn
// public URLs into database load (docs/security.md, Public files).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { findMediaFile } from '../services/catalog/service.js'
import { isUuid } from '../domain/ids.js'
import { ApiError } from '../domain/errors.js'
import { MediaFileCache } from '../lib/media-file-cache.js'
import { limitPerClientIp } from '../plugins/client-ip-rate-limit.js'
import { ErrorBody } from '../schemas/common.js'
import { MediaFileParams } from '../schemas/media.js'

const CACHE_CONTROL = 'public, max-age=31536000, immutable'

/** If-None-Match matches when it lists the ETag (weak comparison, RFC 9110 13.1.2) or is `*`. */
export function etagMatches (ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '')
    return candidate === '*' || candidate === etag
  })
}

const fileNotFound = () => new ApiError('NOT_FOUND', 'No such file.')

const mediaFilesRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify
  const cache = new MediaFileCache(config.MEDIA_CACHE_MB * 1024 * 1024)

  await limitPerClientIp(fastify, 'public-ip')

  fastify.get('/:file', {
    schema: {
      operationId: 'getMediaFile',
      tags: ['service'],
      summary: 'Get a public image file',
      description: 'The image bytes of a media `filePath`. No key needed; limited per client IP ' +
        '(`RateLimit-*` headers, 429 beyond). Carries a strong `ETag`; send it back in `If-None-Match` for a 304.',
      params: MediaFileParams,
      headers: Type.Object({
        'if-none-match': Type.Optional(Type.String({
          description: 'ETags you hold (or `*`): when one matches, the answer is 304 with no body.'
        }))
      }),
      response: {
        200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image bytes.' }),
        304: Type.Unsafe({ description: 'Not modified: no body.' }),
        404: Type.Ref(ErrorBody),
        429: Type.Ref(ErrorBody)
      }
    }
  }, async function getMediaFile (request, reply) {
    const match = /^([^.]+)\.([a-z]+)$/.exec(request.params.file)
    if (!match || !isUuid(match[1])) throw fileNotFound()
    const name = `${match[1].toLowerCase()}.${match[2]}`
    let file = cache.get(name)
    if (!file) {
      file = await findMediaFile(fastify.db, match[1].toLowerCase(), match[2])
      if (!file) throw fileNotFound()
      cache.set(name, file)
    }
    const etag = `"${file.sha256}"`
    reply.header('etag', etag).header('cache-control', CACHE_CONTROL).header('x-content-type-options', 'nosniff')
    // No payload at all: a 304 has no body, so it must not announce a JSON one either.
    if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send()
    return reply.type(file.mime).send(file.data)
  })
}

export default mediaFilesRoutes
