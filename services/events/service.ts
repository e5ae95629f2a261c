// The shop's event feed (docs/events.md): its reads are single statements of
// db/events/store.ts (the events are written by the statements of each feature).
export { newestEventSeq, pageOf, readFeed, type FeedRead } from '../../db/events/store.js'
