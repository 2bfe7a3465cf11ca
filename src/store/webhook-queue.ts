import type { KeyMode } from '../domain/api-keys.js';
import type { Database, Sql } from './database.js';
import type { EventRow } from './events.js';
import type { WebhookEndpointRow } from './webhook-endpoints.js';

/** The channel the outbox trigger notifies (migration 006). */
export const DELIVERY_CHANNEL = 'connect_webhook_deliveries';

export type ClaimedEndpoint = Omit<WebhookEndpointRow, 'created_at' | 'updated_at'>;

/** A delivery a worker holds: its attempt number is the lease token its outcome must present. */
export type ClaimedDelivery = Pick<EventRow, 'type' | 'api_version' | 'data' | 'related_to' | 'related_to_kind' | 'created_at'> & {
  id: string;
  organization_id: string;
  mode: KeyMode;
  attempt_count: number;
  event_id: string;
};

export interface ClaimLimits {
  /** Endpoints served per claim. */
  endpoints: number;
  /** Deliveries this worker can take now. */
  deliveries: number;
  /** In flight per endpoint across every worker. */
  perEndpoint: number;
  leaseSeconds: number;
}

/**
 * Takes due deliveries, in two statements of one transaction:
 * 1. Lock the least recently served endpoints that have due work (SKIP LOCKED: each endpoint is claimed
 *    for by one worker at a time, which is what makes the per-endpoint count exact).
 * 2. With a fresh snapshot, take up to (limit − in flight) of each one's due deliveries, soonest due and
 *    then in event order, skipping any whose object has an earlier event still outstanding for the endpoint,
 *    and lease them by bumping the attempt number.
 * The earlier-event check is a LATERAL ... LIMIT 1, not NOT EXISTS, and only the ordering index can serve it
 * (see the index comments in migration 006): one index probe per candidate, whatever the statistics say.
 * Planned from statistics taken before a burst, the anti join form scanned the whole backlog for every
 * candidate (280 ms per claim at 20,000 outstanding).
 * Worker bookkeeping commits without waiting for the WAL flush (synchronous_commit off): a lease or outcome
 * lost in a crash only means an attempt is made again, which at-least-once delivery allows; the outbox rows
 * themselves are written by the event's own, synchronous, transaction.
 */
export async function claimDeliveries(
  db: Database,
  limits: ClaimLimits,
): Promise<{ endpoints: ClaimedEndpoint[]; deliveries: ClaimedDelivery[] }> {
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL synchronous_commit = off');
    const endpoints = await lockEndpointsWithDueWork(tx, limits.endpoints);
    if (endpoints.length === 0) return { endpoints, deliveries: [] };
    const deliveries = await tx.query<ClaimedDelivery>(
      `WITH endpoint AS (
         SELECT * FROM unnest($1::uuid[], $2::text[]) AS t(organization_id, mode)
       ), room AS (
         SELECT endpoint.organization_id, endpoint.mode, $3::int - (
           SELECT count(*) FROM webhook_deliveries f
           WHERE f.organization_id = endpoint.organization_id AND f.mode = endpoint.mode
             AND f.lease_expires_at IS NOT NULL AND f.lease_expires_at > now()
         ) AS free
         FROM endpoint
       ), picked AS (
         SELECT d.id FROM room CROSS JOIN LATERAL (
           SELECT d.id FROM webhook_deliveries d
           LEFT JOIN LATERAL (
             SELECT 1 AS found FROM webhook_deliveries p
             WHERE p.related_to = d.related_to AND p.state IN ('pending', 'failed') AND p.event_seq < d.event_seq
             LIMIT 1
           ) earlier ON true
           WHERE d.organization_id = room.organization_id AND d.mode = room.mode
             AND d.state IN ('pending', 'failed') AND d.next_attempt_at <= now()
             AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
             AND earlier.found IS NULL
           ORDER BY d.next_attempt_at, d.event_seq
           LIMIT GREATEST(room.free, 0)
           FOR UPDATE OF d SKIP LOCKED
         ) d
         LIMIT $4
       )
       UPDATE webhook_deliveries d
       SET lease_expires_at = now() + make_interval(secs => $5), attempt_count = d.attempt_count + 1, updated_at = now()
       FROM picked, events e
       WHERE d.id = picked.id AND e.id = d.event_id
       RETURNING d.id, d.organization_id, d.mode, d.attempt_count, d.event_id,
                 e.type, e.api_version, e.data, e.related_to, e.related_to_kind, e.created_at`,
      [
        endpoints.map((e) => e.organization_id),
        endpoints.map((e) => e.mode),
        limits.perEndpoint,
        limits.deliveries,
        limits.leaseSeconds,
      ],
    );
    return { endpoints, deliveries };
  });
}

function lockEndpointsWithDueWork(tx: Sql, limit: number): Promise<ClaimedEndpoint[]> {
  // NO KEY UPDATE: it excludes other claimers but not the key-share locks that foreign keys take.
  return tx.query<ClaimedEndpoint>(
    `UPDATE webhook_endpoints w SET served_at = clock_timestamp()
     FROM (
       SELECT e.organization_id, e.mode FROM webhook_endpoints e
       WHERE EXISTS (
         SELECT 1 FROM webhook_deliveries d
         WHERE d.organization_id = e.organization_id AND d.mode = e.mode
           AND d.state IN ('pending', 'failed') AND d.next_attempt_at <= now()
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= now())
       )
       ORDER BY e.served_at NULLS FIRST
       LIMIT $1
       FOR NO KEY UPDATE SKIP LOCKED
     ) due
     WHERE w.organization_id = due.organization_id AND w.mode = due.mode
     RETURNING w.organization_id, w.mode, w.url, w.enabled, w.secret, w.previous_secret, w.previous_secret_expires_at`,
    [limit],
  );
}

/** How one attempt ended, as a worker reports it. */
export interface AttemptRecord {
  id: string;
  /** The attempt number the worker was given: an outcome from a worker whose lease was taken over is ignored. */
  attempt: number;
  state: 'delivered' | 'failed' | 'dead';
  httpStatus: number | null;
  error: string | null;
  /** Seconds until the next attempt, for `failed`. */
  retryInSeconds: number | null;
}

/**
 * Writes many outcomes in one statement and releases their leases; returns how many were still held. It
 * notifies the delivery channel: a delivery that ended may free the next event of its object, and another
 * worker, whose claim found that event still blocked, must look again.
 */
export function recordAttempts(db: Database, records: readonly AttemptRecord[]): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL synchronous_commit = off');
    const [row] = await tx.query<{ recorded: number }>(
      `WITH recorded AS (
         UPDATE webhook_deliveries d SET
           state = r.state,
           lease_expires_at = NULL,
           next_attempt_at = CASE WHEN r.state = 'failed' THEN now() + make_interval(secs => r.retry_in) END,
           delivered_at = CASE WHEN r.state = 'delivered' THEN now() END,
           last_http_status = r.http_status,
           last_error = r.error,
           updated_at = now()
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::float8[])
           AS r(id, attempt, state, http_status, error, retry_in)
         WHERE d.id = r.id AND d.attempt_count = r.attempt AND d.lease_expires_at IS NOT NULL
         RETURNING 1
       )
       SELECT count(*)::int AS recorded, pg_notify('${DELIVERY_CHANNEL}', '') FROM recorded`,
      [
        records.map((r) => r.id),
        records.map((r) => r.attempt),
        records.map((r) => r.state),
        records.map((r) => r.httpStatus),
        records.map((r) => r.error),
        records.map((r) => r.retryInSeconds),
      ],
    );
    return row!.recorded;
  });
}
