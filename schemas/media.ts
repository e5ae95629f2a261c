// Media: the result of an image upload (seller-api 2.6).
import { Type } from '@sinclair/typebox'
import { Id } from './common.js'

export const MediaSchema = Type.Object({
  id: Id,
  filePath: Type.String({ description: '`media/<id>.<ext>`, served publicly at PUBLIC_BASE_URL + `/` + filePath.' })
}, { title: 'Media' })

/** A public file name: `<uuid>.<ext>`. */
export const MediaFileParams = Type.Object({
  file: Type.String({ description: '`<id>.<ext>` as in a media `filePath`; anything else is 404 NOT_FOUND.' })
})
