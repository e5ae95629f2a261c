// An endpoint's log of webhook sends (the API's "delivery log", docs/webhooks.md):
// the statuses a send goes through, and the opaque cursor of a page of the log,
// which names the last send of the page (its createdAt and id: the list is newest first).
import { isUuid } from './ids.js'

export const sendStatuses = ['pending', 'succeeded', 'failed'] as const
export type SendStatus = typeof sendStatuses[number]

export interface SendCursor { createdAt: Date, id: string }

export function encodeSendCursor (cursor: SendCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()} ${cursor.id}`).toString('base64url')
}

/** The position a `nextCursor` names, or null when it is not one. */
export function decodeSendCursor (text: string): SendCursor | null {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\S+)$/.exec(Buffer.from(text, 'base64url').toString())
  if (!match || !isUuid(match[2])) return null
  const createdAt = new Date(match[1])
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: match[2] }
}
