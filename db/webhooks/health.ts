// An endpoint's health and one send's attempts, as the seller's portal shows them
// (docs/portal.md "Webhooks"):
// - the list: each event endpoint's `failing_since` (set by a failed attempt, cleared
//   by a success: db/webhooks/queue.ts, so "its last attempt failed") and whether any
//   attempt was made yet (one probe of webhook_deliveries_endpoint_idx);
// - one endpoint: its last attempt and the share of failed attempts in the last 24 h,
//   read from the attempt logs of the sends created in the last 2 days (the automatic
//   schedule ends within 28 h; a manual retry of an older send is not counted);
// - one send: its attempts, oldest first, with the receiver's answers.
import type { AttemptFailure } from '../../domain/attempt-failures.js'
import type { DisabledReason } from '../../domain/disabled-reasons.js'
import type { Queryable } from '../core/client.js'
import { run } from '../core/sql.js'
import { isoTime } from '../core/time.js'

export interface EndpointHealthRow {
  id: string
  /** The first failed attempt since the last success; null: the last attempt succeeded (or none was made). */
  failingSince: string | null
  attempted: boolean
}

export interface LoggedAttempt {
  at: string
  statusCode: number | null
  error: string | null
  durationMs: number | null
  /** The first 1 KB of the answer's body; null or absent: no answer came (or it was made before answers were kept). */
  answer?: string | null
  /** Why it failed as a kind (absent on attempts before migration 0021). */
  failure?: AttemptFailure | null
}

export interface EndpointHealthDetail {
  failingSince: string | null
  /** Why it is disabled as a kind (null: enabled, or disabled before migration 0021). */
  disabledDetail: DisabledReason | null
  lastAttempt: LoggedAttempt | null
  attemptsLast24h: number
  failedLast24h: number
  /** Some delivery is `failed` (what `Retry all failed` would send again), on any page of the log. */
  anyFailed: boolean
}

/** The shop's event endpoints' health, by id. */
export async function endpointsHealth (db: Queryable, shopId: string): Promise<EndpointHealthRow[]> {
  return run<EndpointHealthRow>(db, `select w.id, ${isoTime('w.failing_since')} as "failingSince",
      exists (select 1 from webhook_deliveries d where d.endpoint_id = w.id and d.attempts > 0) as attempted
    from webhook_endpoints w where w.shop_id = $1 and w.purpose = 'events'`, [shopId])
}

const FAILED_ATTEMPT = '(a->>\'error\' is not null or coalesce((a->>\'statusCode\')::int, 0) not between 200 and 299)'

/** One endpoint's health; undefined when it is not the shop's. */
export async function endpointHealth (
  db: Queryable, shopId: string, endpointId: string
): Promise<EndpointHealthDetail | undefined> {
  const [row] = await run<EndpointHealthDetail>(db, `select ${isoTime('w.failing_since')} as "failingSince",
      w.disabled_detail as "disabledDetail",
      (select a from webhook_deliveries d cross join lateral jsonb_array_elements(d.attempt_log) a
        where d.endpoint_id = w.id and d.created_at > now() - interval '2 days' and d.last_attempt_at is not null
        order by (a->>'at') desc limit 1) as "lastAttempt",
      coalesce(recent.attempts, 0)::int as "attemptsLast24h", coalesce(recent.failed, 0)::int as "failedLast24h",
      exists (select 1 from webhook_deliveries d where d.endpoint_id = w.id and d.status = 'failed') as "anyFailed"
    from webhook_endpoints w cross join lateral (
      select count(*) as attempts, count(*) filter (where ${FAILED_ATTEMPT}) as failed
      from webhook_deliveries d cross join lateral jsonb_array_elements(d.attempt_log) a
      where d.endpoint_id = w.id and d.created_at > now() - interval '2 days'
        and (a->>'at')::timestamptz > now() - interval '24 hours') recent
    where w.id = $2 and w.shop_id = $1 and w.purpose = 'events'`, [shopId, endpointId])
  return row
}

export interface SendAttemptsRow {
  id: string
  webhookId: string
  eventType: string
  status: string
  attempts: number
  createdAt: string
  nextAttemptAt: string | null
  attemptLog: LoggedAttempt[]
}

/** One send of the shop's endpoint with its attempts; undefined when it is not there. */
export async function findSendAttempts (
  db: Queryable, shopId: string, endpointId: string, deliveryId: string
): Promise<SendAttemptsRow | undefined> {
  const [row] = await run<SendAttemptsRow>(db, `select d.id, d.webhook_id as "webhookId", d.event_type as "eventType",
      d.status, d.attempts, ${isoTime('d.created_at')} as "createdAt",
      ${isoTime('d.next_attempt_at')} as "nextAttemptAt", d.attempt_log as "attemptLog"
    from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
    where d.id = $3 and d.endpoint_id = $2 and w.shop_id = $1 and w.purpose = 'events'`,
  [shopId, endpointId, deliveryId])
  return row
}

/** Why the sends `ids` of the shop's endpoint last failed, as kinds, by send id (none: no kind stored). */
export async function sendFailures (
  db: Queryable, shopId: string, endpointId: string, ids: readonly string[]
): Promise<Map<string, AttemptFailure>> {
  if (ids.length === 0) return new Map()
  const rows = await run<{ id: string, failure: AttemptFailure }>(db, `select d.id, d.last_error_detail as failure
    from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
    where d.id = any($3::uuid[]) and d.endpoint_id = $2 and w.shop_id = $1 and d.last_error_detail is not null`,
  [shopId, endpointId, `{${ids.join(',')}}`])
  return new Map(rows.map((row) => [row.id, row.failure]))
}
