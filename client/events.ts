// The events feed as an async iterator of pages: each page is the events after
// the cursor, oldest first, and the cursor to store once they are handled. A bot
// that stores `nextCursor` after handling a page and starts again from it
// neither misses nor repeats an event.
import { setTimeout as sleep } from 'node:timers/promises'
import { SellerApiError } from './errors.js'
import type { components } from './schema.js'
import type { SellerClient } from './seller-client.js'
import { unwrap } from './unwrap.js'

export type Event = components['schemas']['Event']
export interface EventPage { events: Event[], nextCursor: string }

export interface FollowOptions {
  /** Start after this stored cursor; absent: from the oldest retained event (`latest`: only new ones). */
  after?: string
  /** Only these kinds (the cursor still moves past the others). */
  types?: Array<Event['type']>
  /** Seconds each long poll is held when nothing is new (default 30). */
  wait?: number
  /** Events per page (default 50). */
  limit?: number
  /** Stops the iteration (a held poll is aborted). */
  signal?: AbortSignal
}

/** Follows the shop's feed for as long as `signal` allows: yields every non-empty page. */
export async function * followEvents (client: SellerClient, options: FollowOptions = {}): AsyncGenerator<EventPage> {
  let after = options.after
  while (!options.signal?.aborted) {
    let page: EventPage
    try {
      page = await unwrap(client.GET('/v1/events', {
        params: {
          query: {
            after,
            types: options.types?.join(','),
            wait: options.wait ?? 30,
            limit: options.limit ?? 50
          }
        },
        signal: options.signal
      }))
    } catch (err) {
      if (options.signal?.aborted) return
      // The service is away: wait a little and poll again from the same cursor.
      const away = err instanceof SellerApiError &&
        (err.code === 'NETWORK_ERROR' || [429, 502, 503, 504].includes(err.status))
      if (away) {
        await sleep(1000, undefined, { signal: options.signal }).catch(() => {})
        continue
      }
      throw err
    }
    after = page.nextCursor
    if (page.events.length > 0) yield page
  }
}
