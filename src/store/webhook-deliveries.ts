import type { KeyMode } from '../domain/api-keys.js';
import type { DeliveryState, ReplayableState } from '../domain/webhooks.js';
import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';

export type DeliveryOrigin = 'event' | 'replay' | 'bulk_replay';

export interface DeliveryRow {
  id: string;
  organization_id: string;
  mode: KeyMode;
  event_id: string;
  origin: DeliveryOrigin;
  state: DeliveryState;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_http_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, organization_id, mode, event_id, origin, state, attempt_count, next_attempt_at, last_http_status, last_error, delivered_at, created_at, updated_at';

/** A fresh delivery of one of the tenant's events to its enabled endpoint; null when there is no such endpoint. */
export async function queueReplay(tx: Sql, organizationId: string, mode: KeyMode, eventId: string): Promise<DeliveryRow | null> {
  const [row] = await tx.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, organization_id, mode, event_id, event_seq, related_to, origin, state, next_attempt_at)
     SELECT gen_random_uuid(), e.organization_id, e.mode, e.id, e.seq, e.related_to, 'replay', 'pending', now()
     FROM events e
     JOIN webhook_endpoints w ON w.organization_id = e.organization_id AND w.mode = e.mode AND w.enabled
     WHERE e.id = $3 AND e.organization_id = $1 AND e.mode = $2
     RETURNING ${COLUMNS}`,
    [organizationId, mode, eventId],
  );
  return row ?? null;
}

/**
 * Fresh deliveries for every event of [from, to] whose most recent delivery ended in `state` (`none`: never
 * had one); they go out in event order like any other. Returns how many were queued.
 */
export async function queueBulkReplay(
  tx: Sql,
  organizationId: string,
  mode: KeyMode,
  range: { from: Date; to: Date },
  state: ReplayableState,
): Promise<number> {
  const [row] = await tx.query<{ queued: number }>(
    `WITH queued AS (
       INSERT INTO webhook_deliveries (id, organization_id, mode, event_id, event_seq, related_to, origin, state, next_attempt_at)
       SELECT gen_random_uuid(), e.organization_id, e.mode, e.id, e.seq, e.related_to, 'bulk_replay', 'pending', now()
       FROM events e
       LEFT JOIN LATERAL (
         SELECT d.state FROM webhook_deliveries d WHERE d.event_id = e.id ORDER BY d.created_at DESC, d.id DESC LIMIT 1
       ) latest ON true
       WHERE e.organization_id = $1 AND e.mode = $2 AND e.created_at BETWEEN $3 AND $4
         AND CASE WHEN $5::text = 'none' THEN latest.state IS NULL ELSE latest.state = $5::text END
       RETURNING 1
     )
     SELECT count(*)::int AS queued FROM queued`,
    [organizationId, mode, range.from, range.to, state],
  );
  return row!.queued;
}

/** Disabling an endpoint ends what was still waiting for it; deliveries in flight finish their attempt. */
export async function endOutstanding(tx: Sql, organizationId: string, mode: KeyMode, reason: string): Promise<number> {
  const rows = await tx.query(
    `UPDATE webhook_deliveries SET state = 'dead', next_attempt_at = NULL, last_error = $3, updated_at = now()
     WHERE organization_id = $1 AND mode = $2 AND state IN ('pending', 'failed')
       AND (lease_expires_at IS NULL OR lease_expires_at <= now())
     RETURNING 1`,
    [organizationId, mode, reason],
  );
  return rows.length;
}

export interface DeliveryFilters {
  mode?: KeyMode;
  eventId?: string;
  state?: DeliveryState;
}

export function listDeliveries(sql: Sql, organizationId: string, filters: DeliveryFilters, page: PageRequest): Promise<Page<DeliveryRow>> {
  const filter = new Filter()
    .add((p) => `organization_id = ${p}`, organizationId)
    .optional((p) => `mode = ${p}`, filters.mode)
    .optional((p) => `event_id = ${p}`, filters.eventId)
    .optional((p) => `state = ${p}`, filters.state);
  return fetchPage<DeliveryRow>(sql, `SELECT ${COLUMNS} FROM webhook_deliveries`, filter, page);
}
