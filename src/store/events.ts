import type { EventType, RelatedKind } from '../domain/events.js';
import type { Sql } from './database.js';
import { jsonbText } from './jsonb-text.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from './tenancy.js';

export interface EventRow {
  id: string;
  organization_id: string;
  mode: Tenant['mode'];
  type: EventType;
  api_version: string;
  data: Record<string, unknown>;
  related_to: string | null;
  related_to_kind: RelatedKind | null;
  created_at: Date;
}

/**
 * An event as read back, in the form its answers print: `data` as its JSON text (see migration 029) and
 * `created_at` as its ISO 8601 text, so that a page of events is neither parsed nor formatted again.
 */
export type StoredEvent = Omit<EventRow, 'data' | 'created_at'> & { data_text: string; created_at: string };

// Rows from before migration 029 have no text: theirs is made from the jsonb, as every answer was made before.
// The time is printed by api_time (migration 029) as Date.toISOString would.
const COLUMNS = `id, organization_id, mode, type, api_version, data_text, CASE WHEN data_text IS NULL THEN data END AS data,
  related_to, related_to_kind, api_time(created_at) AS created_at`;

type Read = Omit<StoredEvent, 'data_text'> & { data_text: string | null; data: Record<string, unknown> | null };

/** Fills the text of pre-029 rows in place: a page's rows are not copied. */
function stored(rows: Read[]): StoredEvent[] {
  for (const row of rows) if (row.data_text === null) row.data_text = JSON.stringify(row.data);
  return rows as StoredEvent[];
}

/**
 * Appends the event and, in the same statement, its outbox row: a delivery exists exactly when the
 * organization has an enabled webhook endpoint for the event's mode when the event is written.
 */
export async function insertEvent(tx: Sql, event: EventRow): Promise<void> {
  await tx.query(
    `WITH event AS (
       INSERT INTO events (id, organization_id, mode, type, api_version, data, data_text, related_to, related_to_kind, created_at)
       VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $6::text, $7, $8, $9)
       RETURNING id, seq, organization_id, mode, related_to
     )
     INSERT INTO webhook_deliveries (id, organization_id, mode, event_id, event_seq, related_to, origin, state, next_attempt_at)
     SELECT gen_random_uuid(), e.organization_id, e.mode, e.id, e.seq, e.related_to, 'event', 'pending', now()
     FROM event e
     JOIN webhook_endpoints w ON w.organization_id = e.organization_id AND w.mode = e.mode AND w.enabled`,
    [
      event.id,
      event.organization_id,
      event.mode,
      event.type,
      event.api_version,
      jsonbText(event.data),
      event.related_to,
      event.related_to_kind,
      event.created_at,
    ],
  );
}

export async function findEvent(sql: Sql, tenant: Tenant, id: string): Promise<StoredEvent | null> {
  const [row] = await sql.query<Read>(
    `SELECT ${COLUMNS} FROM events WHERE id = $1 AND organization_id = $2 AND mode = $3`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ? stored([row])[0]! : null;
}

export interface EventFilters {
  types?: EventType[];
  relatedTo?: string;
  from?: Date;
  to?: Date;
}

export async function listEvents(sql: Sql, tenant: Tenant, filters: EventFilters, page: PageRequest): Promise<Page<StoredEvent>> {
  const filter = Filter.tenant(tenant)
    .optional((p) => `type = ANY(${p}::text[])`, filters.types)
    .optional((p) => `related_to = ${p}`, filters.relatedTo)
    .optional((p) => `created_at >= ${p}`, filters.from)
    .optional((p) => `created_at <= ${p}`, filters.to);
  const found = await fetchPage<Read>(sql, `SELECT ${COLUMNS} FROM events`, filter, page);
  return { rows: stored(found.rows), hasMore: found.hasMore };
}
