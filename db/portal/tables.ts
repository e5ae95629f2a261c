// The seller portal's tables (docs/portal.md): the operator's single-use links,
// the sessions they start, and the record of what each session did. Tokens are
// stored only as SHA-256 hashes; the record holds no secret and no stock value.
import { sql } from 'drizzle-orm'
import { boolean, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { id, shops, stamp, ts } from '../tables.js'

export const portalLinks = pgTable(
  'portal_links',
  {
    id: id(),
    shopId: uuid('shop_id')
      .notNull()
      .references(() => shops.id),
    tokenHash: text('token_hash').notNull(),
    readOnly: boolean('read_only').notNull(),
    locale: text('locale').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** Set by the one opening that starts a session: a link is good once. */
    usedAt: ts('used_at'),
    createdAt: stamp('created_at')
  },
  (t) => [
    uniqueIndex('portal_links_token_hash_idx').on(t.tokenHash),
    index('portal_links_shop_idx').on(t.shopId, t.expiresAt)
  ]
)

/**
 * A session lives until `expiresAt` (12 h after entering), until an hour passes
 * without a request (`lastSeenAt`), or until the operator ends it (`endedAt`);
 * every request checks all three in Postgres, so every instance agrees at once.
 */
export const portalSessions = pgTable(
  'portal_sessions',
  {
    id: id(),
    shopId: uuid('shop_id')
      .notNull()
      .references(() => shops.id),
    tokenHash: text('token_hash').notNull(),
    /** Given to the pages, sent back in X-CSRF-Token on every change. */
    csrfToken: text('csrf_token').notNull(),
    readOnly: boolean('read_only').notNull(),
    locale: text('locale').notNull(),
    /** The seller's time zone: the pages' times are shown in it. */
    tz: text('tz').notNull().default('Europe/Moscow'),
    createdAt: stamp('created_at'),
    lastSeenAt: stamp('last_seen_at'),
    expiresAt: ts('expires_at').notNull(),
    endedAt: ts('ended_at')
  },
  (t) => [
    uniqueIndex('portal_sessions_token_hash_idx').on(t.tokenHash),
    index('portal_sessions_shop_idx')
      .on(t.shopId)
      .where(sql`ended_at is null`)
  ]
)

/** The Activity page: what each session did, newest first; a shop keeps its last 200. */
export const portalActivity = pgTable(
  'portal_activity',
  {
    id: id(),
    shopId: uuid('shop_id')
      .notNull()
      .references(() => shops.id),
    sessionId: uuid('session_id').notNull(),
    action: text('action').notNull(),
    /** Names and counts that say what was done (ids, a key's name, a URL's host): never a secret or a value. */
    details: jsonb('details')
      .$type<Record<string, string | number | boolean | null>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    createdAt: stamp('created_at')
  },
  (t) => [index('portal_activity_shop_idx').on(t.shopId, t.createdAt.desc(), t.id.desc())]
)
