// Uploaded images, stored in Postgres so every instance can serve them. The
// public file name is `<id>.<ext>`; the SHA-256 of the bytes is its strong ETag.
import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { Queryable } from '../core/client.js'
import { media } from '../tables.js'

export interface StoredMedia { id: string, ext: string }

/** Where the public file lives, relative to PUBLIC_BASE_URL. */
export const mediaFilePath = (item: StoredMedia) => `media/${item.id}.${item.ext}`

export async function insertMedia (
  db: Queryable, shopId: string, file: { ext: string, mime: string, data: Buffer }
): Promise<StoredMedia> {
  const sha256 = createHash('sha256').update(file.data).digest('hex')
  const [row] = await db.insert(media)
    .values({ shopId, ext: file.ext, mime: file.mime, size: file.data.length, sha256, data: file.data })
    .returning({ id: media.id, ext: media.ext })
  return row
}

/** The shop's own media item (without its bytes), or undefined. */
export async function findShopMedia (db: Queryable, shopId: string, id: string): Promise<StoredMedia | undefined> {
  const [row] = await db.select({ id: media.id, ext: media.ext }).from(media)
    .where(and(eq(media.id, id), eq(media.shopId, shopId)))
  return row
}

/** A public file by id and extension (both must match), with its bytes. */
export async function findMediaFile (
  db: Queryable, id: string, ext: string
): Promise<{ mime: string, sha256: string, data: Buffer } | undefined> {
  const [row] = await db.select({ mime: media.mime, sha256: media.sha256, data: media.data }).from(media)
    .where(and(eq(media.id, id), eq(media.ext, ext)))
  return row
}
