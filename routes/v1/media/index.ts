// POST /v1/media: upload a product image. The type is decided from the bytes
// (magic numbers), never from the client's Content-Type: only JPEG, PNG, WebP
// and GIF are images here; SVG, HTML, PDF and anything else are refused.
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { fileTypeFromBuffer } from 'file-type'
import { insertMedia, mediaFilePath } from '../../../db/media.js'
import { ApiError, validationError } from '../../../plugins/errors.js'
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
    limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 10, parts: 20, fieldSize: 1024 }
  })

  fastify.post('/', {
    schema: {
      tags: ['catalog'],
      summary: 'Upload an image',
      description: 'multipart/form-data with one part named `file` (at most 10 MB, larger: 413). The type is read from the bytes: ' +
        'JPEG, PNG, WebP or GIF; anything else (SVG, HTML, PDF, empty) is 400 VALIDATION_ERROR whatever Content-Type the part claims. ' +
        'Pass the returned `id` as a product\'s `imageId`; the file is public at PUBLIC_BASE_URL + `/` + `filePath`.',
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

/**
 * The bytes of the part named `file`. A malformed multipart body (no boundary,
 * truncated parts) is the client's fault: busboy's bare errors become a 400,
 * while the plugin's own coded errors (too large, too many files) keep their mapping.
 */
async function readImagePart (request: FastifyRequest): Promise<Buffer> {
  try {
    const part = await request.file()
    if (!part || part.fieldname !== 'file') throw validationError('Send the image as a file in the multipart part named `file`.')
    return await part.toBuffer()
  } catch (err) {
    if (err instanceof ApiError || (err as { code?: string }).code?.startsWith('FST_')) throw err
    throw validationError(`The multipart body is malformed: ${(err as Error).message}.`)
  }
}

export default mediaRoutes
