// API keys of a shop: create (the secret is returned once), list, revoke, and
// the lookup by hash of a key the service has not cached.
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { displayPrefix, generateApiKeySecret, hashApiKey } from '../../domain/api-key.js'
import type { Queryable, Tx } from '../core/client.js'
import { preparedOnce } from '../core/sql.js'
import { nowMs } from '../core/time.js'
import { apiKeys } from '../tables.js'

const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt
}

export type ApiKeyRow = {
  id: string,
  name: string,
  prefix: string,
  createdAt: Date,
  lastUsedAt: Date | null,
  revokedAt: Date | null
}

const iso = (value: Date | null) => value ? value.toISOString() : null

/** A key as the operator API and the CLI show it (ApiKeySchema in schemas/operator.ts); never its secret or hash. */
export function apiKeyView (key: ApiKeyRow) {
  return {
    ...key,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt)
  }
}

export async function createApiKey (
  db: Queryable, shopId: string, name: string
): Promise<{ apiKey: ApiKeyRow, secret: string }> {
  const secret = generateApiKeySecret()
  const [apiKey] = await db.insert(apiKeys)
    .values({ shopId, name, keyHash: hashApiKey(secret), prefix: displayPrefix(secret) })
    .returning(publicColumns)
  return { apiKey, secret }
}

export function listApiKeys (db: Queryable, shopId: string): Promise<ApiKeyRow[]> {
  return db.select(publicColumns).from(apiKeys).where(eq(apiKeys.shopId, shopId)).orderBy(desc(apiKeys.createdAt),
    desc(apiKeys.id))
}

/**
 * The channel of revocation notices: every instance listens (plugins/auth.ts)
 * and drops the keys it cached; the payload is the key's shop id.
 */
export const KEY_REVOCATIONS_CHANNEL = 'seller_api_key_revocations'

/**
 * Revokes a key (idempotent: a revoked key keeps its first revocation time) and
 * tells every instance in the same commit: the NOTIFY is part of the transaction,
 * so no revocation commits without its notice, whoever revokes (the operator API,
 * the CLI) and whether or not Redis answers (docs/security.md, Revocation).
 * Unlike the events' notifications (db/core/notifications.ts) it is sent inside the
 * transaction: revocations are rare, so the commit lock a NOTIFY takes costs nothing.
 */
export async function revokeApiKey (tx: Tx, shopId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [apiKey] = await tx.update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${nowMs})` })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.shopId, shopId)))
    .returning(publicColumns)
  if (apiKey) await tx.execute(sql`select pg_notify(${KEY_REVOCATIONS_CHANNEL}, ${shopId})`)
  return apiKey
}

export interface AuthenticatedKey { id: string, shopId: string, lastUsedAt: Date | null }

/** Runs on seller requests whose key is not cached: prepared once, planned once per connection. */
const activeKeyQuery = (db: Queryable) => db.select({
  id: apiKeys.id,
  shopId: apiKeys.shopId,
  lastUsedAt: apiKeys.lastUsedAt
})
  .from(apiKeys)
  .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
  .prepare('find_active_api_key')

/** The active key whose secret has this SHA-256 hash (domain/api-key.ts hashApiKey). */
export async function findActiveApiKey (db: Queryable, keyHash: string): Promise<AuthenticatedKey | undefined> {
  const query = preparedOnce(db, 'find_active_api_key', () => activeKeyQuery(db))
  const [row] = await query.execute({ keyHash })
  return row
}

export async function touchApiKey (db: Queryable, keyId: string): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: nowMs }).where(eq(apiKeys.id, keyId))
}
