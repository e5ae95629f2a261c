// An endpoint's delivery log (docs/webhooks.md): the statuses a delivery goes
// through, and the opaque cursor of a page of the log, which names the last
// delivery of the page (its createdAt and id: the list is newest first).
import { isUuid } from './ids.js'

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const
export type DeliveryStatus = typeof deliveryStatuses[number]

export interface DeliveryCursor { createdAt: Date, id: string }

export function encodeDeliveryCursor (cursor: DeliveryCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()} ${cursor.id}`).toString('base64url')
}

/** The position a `nextCursor` names, or null when it is not one. */
export function decodeDeliveryCursor (text: string): DeliveryCursor | null {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\S+)$/.exec(Buffer.from(text, 'base64url').toString())
  if (!match || !isUuid(match[2])) return null
  const createdAt = new Date(match[1])
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: match[2] }
}
