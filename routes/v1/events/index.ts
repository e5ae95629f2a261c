// /v1/events: the shop's order feed (docs/events.md), resumable with an
// opaque cursor and long-polled. A held request waits on a wake-up registered
// before its first read (plugins/event-wakeups.ts), holding no database
// connection, and each time its shop has an event it is served from one read
// shared by the shop's held requests, or re-reads the feed itself.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { newestEventSeq, pageOf, readFeed, type FeedRead } from '../../../services/events/service.js'
import { decodeEventCursor, encodeEventCursor } from '../../../domain/event-cursor.js'
import { eventTypes, type EventType } from '../../../domain/event-types.js'
import { revealEventData } from '../../../domain/delivered-values.js'
import type { StockCipher } from '../../../domain/stock-cipher.js'
import { ApiError, validationError } from '../../../domain/errors.js'
import { CommonErrors, Envelope, ErrorBody, sellerSecurity } from '../../../schemas/common.js'
import { EventFeedPage, EventFeedQuery, type Event } from '../../../schemas/events.js'
import { serializeFeedPage } from './page-serializer.js'

const badCursor = (message: string) => validationError(message, [{
  path: 'querystring.after',
  message: 'must be a nextCursor of this shop\'s feed, or latest'
}])

/** An event as the feed returns it (EventSchema), the values of the order it carries opened. */
function eventView (
  row: { id: string, type: EventType, createdAt: string, data: unknown }, cipher: StockCipher | null
): Event {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.createdAt,
    data: revealEventData(row.data, cipher)
  } as Event
}

const eventsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { db } = fastify

  /** Reads after `after`, refusing a position the feed no longer has (410) or never had (400). */
  async function readFrom (
    shopId: string, after: number | null, types: readonly EventType[], limit: number
  ): Promise<FeedRead> {
    const read = await readFeed(db, shopId, after, types, limit)
    if (read.after < read.pruned) {
      throw new ApiError('CURSOR_EXPIRED')
    }
    if (read.after > read.newest) throw badCursor('The cursor is ahead of this shop\'s feed.')
    return read
  }

  fastify.get('/', {
    schema: {
      operationId: 'listEvents',
      tags: ['events'],
      summary: 'Follow the shop\'s events',
      description: 'Every event of the shop, oldest first, in commit order: the changes and chat messages of ' +
        'its orders with automation, its products\' stock signals and the orders its delivery endpoint could ' +
        'not supply (the kinds: `types`). Pass the previous `nextCursor` as `after` each time and you receive ' +
        'every event exactly once, whichever instance answers. With `wait` > 0 and nothing new, the request ' +
        'is held until an event of the shop commits (answered within about 100 ms) or `wait` seconds pass ' +
        '(then `events` is `[]` and `nextCursor` the position you asked for). A held request counts once ' +
        'against the rate limit. ' +
        `Events are kept ${fastify.config.EVENT_RETENTION_DAYS} days; an older cursor is 410 CURSOR_EXPIRED.`,
      security: sellerSecurity,
      querystring: EventFeedQuery,
      response: { 200: Envelope(EventFeedPage), ...CommonErrors, 410: Type.Ref(ErrorBody) }
    }
  }, async function followEvents (request, reply) {
    const shopId = request.apiKey!.shopId
    const { after, limit, wait } = request.query
    const types = request.query.types === undefined
      ? eventTypes
      : [...new Set(request.query.types.split(','))] as EventType[]
    let start: number | null = null
    if (after !== undefined && after !== 'latest') {
      start = decodeEventCursor(shopId, after)
      if (start === null) throw badCursor('`after` is not a cursor of this shop\'s feed.')
    }
    const deadline = Date.now() + wait * 1000
    // Watching starts before the first read: an event committed in between still wakes the request.
    const watch = wait > 0 ? fastify.eventWakeups.watch(shopId) : null
    // A client that hangs up stops being held.
    if (watch) reply.raw.once('close', () => watch.close())
    try {
      let read: FeedRead | null = null
      let position: number
      if (after === 'latest') {
        position = await newestEventSeq(db, shopId)
      } else {
        read = await readFrom(shopId, start, types, limit)
        position = read.nextSeq
      }
      while ((read === null || read.events.length === 0) && watch) {
        const wakeup = await watch.next(deadline - Date.now(), { after: position, limit })
        if (wakeup === null) break
        // Woken (an event, or a revocation of one of the shop's keys): the key may have been revoked meanwhile.
        if (!await fastify.apiKeyStillActive(request)) throw new ApiError('API_KEY_INVALID')
        // Served from the read the registry made for all held requests of the shop, when it can be.
        read = (wakeup !== 'woken' && pageOf(wakeup, position, types, limit)) || await readFrom(shopId, position,
          types, limit)
        position = read.nextSeq
      }
      // Answered early because this instance is shutting down: the client reconnects, to another one.
      if (fastify.eventWakeups.closing) reply.header('connection', 'close')
      const page = {
        success: true as const,
        data: {
          events: (read?.events ?? []).map((event) => eventView(event, fastify.stockCipher)),
          nextCursor: encodeEventCursor(shopId, position)
        }
      }
      // Set once the page is built (opening a value may throw, and the error's body is not a page):
      // each event by its own kind's serializer, not through the schema's union (page-serializer.ts).
      reply.serializer(serializeFeedPage).type('application/json; charset=utf-8')
      return page
    } finally {
      watch?.close()
    }
  })
}

export default eventsRoutes
