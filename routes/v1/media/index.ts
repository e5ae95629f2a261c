// POST /v1/media: upload a product image. The type is decided from the bytes
// (magic numbers), never from the client's Content-Type: only JPEG, PNG, WebP
// and GIF are images here; SVG, HTML, PDF and anything else are refused.
// The upload is exactly one part, the file; its size is counted here as it
// arrives, not taken from busboy's `truncated` flag, which is not reliable
// (fastify-multipart issues #542, #428).
import type { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { fileTypeFromBuffer } from 'file-type'
import { insertMedia, mediaFilePath } from '../../../services/catalog/service.js'
import { ApiError, tooLarge, validationError } from '../../../domain/errors.js'
import { errorText, stringCode } from '../../../lib/error-shape.js'
import { CommonErrors, Envelope, sellerSecurity } from '../../../schemas/common.js'
import { MediaSchema } from '../../../schemas/media.js'

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024

/** Detected MIME type → how the public file is named and served. An animated PNG is a PNG. */
const imageTypes: Record<string, { ext: string, mime: string }> = {
  'image/jpeg': { ext: 'jpg', mime: 'image/jpeg' },
  'image/png': { ext: 'png', mime: 'image/png' },
  'image/apng': { ext: 'png', mime: 'image/png' },
  'image/webp': { ext: 'webp', mime: 'image/webp' },
  'image/gif': { ext: 'gif', mime: 'image/gif' }
}

const mediaRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  await fastify.register(multipart, {
    // Room for one part more than allowed, so that a second part reaches
    // readImagePart and is refused there; a file one byte over the limit, so the
    // count below sees it. Busboy stops parsing past these.
    limits: { fileSize: MAX_IMAGE_BYTES + 1, files: 2, fields: 1, parts: 2, fieldSize: 1024, headerPairs: 20 },
    throwFileSizeLimit: false
  })

  fastify.post('/', {
    schema: {
      operationId: 'uploadImage',
      tags: ['catalog'],
      summary: 'Upload an image',
      description: 'multipart/form-data with exactly one part, a file named `file` (at most 10 MB, larger: ' +
        '413; any other part: 400). The type is read from the bytes: ' +
        'JPEG, PNG, WebP or GIF; anything else (SVG, HTML, PDF, empty) is 400 VALIDATION_ERROR whatever ' +
          'Content-Type the part claims. ' +
        'Pass the returned `id` as a product\'s `imageId`; the file is public at the service\'s base URL + `/` + ' +
        '`filePath`, which is `GET /media/{file}` with `file` the name after `media/`.',
      security: sellerSecurity,
      consumes: ['multipart/form-data'],
      response: { 201: Envelope(MediaSchema), 413: CommonErrors[400], ...CommonErrors }
    }
  }, async function uploadImage (request, reply) {
    const data = await readImagePart(request)
    const detected = await fileTypeFromBuffer(data)
    const type = detected && imageTypes[detected.mime]
    if (!type) throw validationError('The file is not a JPEG, PNG, WebP or GIF image.')
    const stored = await insertMedia(fastify.db, request.apiKey!.shopId, { ...type, data })
    return reply.code(201).send({ success: true as const, data: { id: stored.id, filePath: mediaFilePath(stored) } })
  })
}

const onePartOnly = () => validationError('Send exactly one part: the image, as a file in the part named `file`.')
const fileTooLarge = () => tooLarge('The file is larger than 10 MB.')

/**
 * The stream's bytes, or null once they exceed `max`; read to its end either way
 * (keeping nothing past `max`), so the request body is consumed and the client,
 * still sending, gets the answer on a connection it can reuse.
 */
async function readAtMost (stream: Readable, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size <= max) chunks.push(chunk)
  }
  return size > max ? null : Buffer.concat(chunks, size)
}

/**
 * The bytes of the only part, a file named `file`. Every part is read to its
 * end before refusing anything (see readAtMost). A malformed multipart body (no
 * boundary, truncated parts) is the client's fault: busboy's bare errors become
 * a 400, while the plugin's own coded errors keep their mapping.
 */
async function readImagePart (request: FastifyRequest): Promise<Buffer> {
  let image: Buffer | undefined
  let refusal: ApiError | undefined
  try {
    for await (const part of request.parts()) {
      const wanted = image === undefined && refusal === undefined && part.type === 'file' && part.fieldname === 'file'
      if (!wanted) refusal ??= onePartOnly()
      if (part.type !== 'file') continue
      const bytes = await readAtMost(part.file, wanted ? MAX_IMAGE_BYTES : 0)
      if (!wanted) continue
      if (bytes === null) refusal = fileTooLarge()
      else image = bytes
    }
  } catch (err) {
    if (err instanceof ApiError || stringCode(err)?.startsWith('FST_')) throw err
    throw validationError(`The multipart body is malformed: ${errorText(err, 'unreadable')}.`)
  }
  if (refusal) throw refusal
  if (image === undefined) throw onePartOnly()
  return image
}

export default mediaRoutes
