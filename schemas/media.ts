// Media: the result of an image upload (docs/api-rules.md, images).
import { Type } from '@sinclair/typebox'
import { Id } from './common.js'

export const MediaSchema = Type.Object({
  id: Id,
  filePath: Type.String({
    pattern: '^media/[^/]+$',
    description: '`media/<id>.<ext>`: the file\'s path on the service, served publicly at the service\'s base ' +
      'URL + `/` + filePath. `GET /media/{file}` takes the last segment alone (`<id>.<ext>`), not the whole filePath.'
  })
}, { 'x-component': 'Media', title: 'Media' })

/** A public file name: `<uuid>.<ext>`. */
export const MediaFileParams = Type.Object({
  file: Type.String({
    description: 'The file name `<id>.<ext>`: a media `filePath` without its `media/` prefix ' +
      '(`media/<id>.png` → `<id>.png`). Anything else is 404 NOT_FOUND.'
  })
})

/** The content types a stored image is served with. */
export const imageContentTypes = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const

/**
 * The upload's multipart body (documentation only: the route reads the part as
 * a stream with @fastify/multipart, so there is no body to validate up front).
 */
export const UploadImageBody = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'The image: JPEG, PNG, WebP or GIF, judged by its bytes; at most 10 MB.'
  })
}, { description: 'One part named `file`.' })
