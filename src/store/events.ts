import type { EventType, RelatedKind } from '../domain/events.js';
import type { Sql } from './database.js';
import { jsonbText } from './jsonb-text.js';
import { fetchPage, Filter, keysetQuery, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from '../domain/tenancy.js';

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

/** An event as the dashboard lists it, its time as the ISO 8601 text answers print. */
export type EventSummary = Pick<EventRow, 'id' | 'type' | 'related_to' | 'related_to_kind'> & { created_at: string };

/** An event as the API answers it: its whole JSON text, written by PostgreSQL (see EVENT_FIELDS). */
export interface EventText {
  json: string;
}

/** A page of events as the API answers it: their JSON texts joined by commas ('' for none), newest first. */
export interface EventTextPage {
  items: string;
  hasMore: boolean;
  /** The position of the page's last event, for the next page's cursor. */
  last: { created_at: string; id: string } | null;
}

/**
 * The SQL of each field of an event as answers print it, for the JSON text written by PostgreSQL (the HTTP layer
 * turns these into the Event object's text). `data` is the text stored with the event (migration 029); rows from
 * before it have none and give jsonb's own text, made compact here (`compacted`). Times are printed by api_time
 * (migration 029) as Date.toISOString would.
 */
export const EVENT_FIELDS = {
  id: 'id',
  type: 'type',
  livemode: "mode = 'live'",
  api_version: 'api_version',
  created_at: 'api_time(created_at)',
  data: 'COALESCE(data_text, data::text)',
  related_to: 'related_to',
  related_to_kind: 'related_to_kind',
} as const;

const SUMMARY = 'id, type, related_to, related_to_kind, api_time(created_at) AS created_at';
/** Whether every row's text is compact: pre-029 rows carry jsonb's spaced text instead. */
const COMPACT = 'data_text IS NOT NULL';

/** Pre-029 rows' text, parsed and written again, as every answer was made before. */
const compacted = (json: string, compact: boolean | null) => (compact === false ? JSON.stringify(JSON.parse(json)) : json);

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

const findOne = <Row>(sql: Sql, columns: string, tenant: Tenant, id: string) =>
  sql.query<Row>(`SELECT ${columns} FROM events WHERE id = $1 AND organization_id = $2 AND mode = $3`, [id, tenant.organizationId, tenant.mode]);

/** One event's JSON text; `json` is the SQL writing it from EVENT_FIELDS. */
export async function findEventText(sql: Sql, tenant: Tenant, id: string, json: string): Promise<EventText | null> {
  const [row] = await findOne<EventText & { compact: boolean }>(sql, `${json} AS json, ${COMPACT} AS compact`, tenant, id);
  return row ? { json: compacted(row.json, row.compact) } : null;
}

export async function findEventSummary(sql: Sql, tenant: Tenant, id: string): Promise<EventSummary | null> {
  const [row] = await findOne<EventSummary>(sql, SUMMARY, tenant, id);
  return row ?? null;
}

export interface EventFilters {
  types?: EventType[];
  relatedTo?: string;
  from?: Date;
  to?: Date;
}

const eventFilter = (tenant: Tenant, filters: EventFilters) =>
  Filter.tenant(tenant)
    .optional((p) => `type = ANY(${p}::text[])`, filters.types)
    .optional((p) => `related_to = ${p}`, filters.relatedTo)
    .optional((p) => `created_at >= ${p}`, filters.from)
    .optional((p) => `created_at <= ${p}`, filters.to);

/**
 * Between two events' texts in the one text PostgreSQL joins (E'\x1e' in the statement): a control character,
 * which JSON text never holds unescaped (JSON.stringify and PostgreSQL's to_json escape it inside strings).
 */
const SEPARATOR = '\x1e';

/**
 * A page of events' JSON texts; `json` is the SQL writing each from EVENT_FIELDS. PostgreSQL joins them, the one
 * row past the page included, into one text: one row to send and parse instead of a row per event. The row past
 * the page is cut off here, and the page's last event, parsed, gives the next cursor (numbering the rows in SQL
 * instead cost PostgreSQL up to a third more in pgbench).
 */
export async function listEventTexts(sql: Sql, tenant: Tenant, filters: EventFilters, page: PageRequest, json: string): Promise<EventTextPage> {
  const { text, values, orderBy } = keysetQuery(`SELECT ${json} AS json, ${COMPACT} AS compact, created_at, id FROM events`, eventFilter(tenant, filters), page);
  const [found] = await sql.query<{ joined: string | null; count: number; compact: boolean | null }>(
    `SELECT string_agg(json, E'\\x1e' ${orderBy}) AS joined, count(*)::int AS count, bool_and(compact) AS compact FROM (${text}) page`,
    values,
  );
  const hasMore = found!.count > page.limit;
  const joined = found!.joined ?? '';
  const kept = hasMore ? joined.slice(0, joined.lastIndexOf(SEPARATOR)) : joined;
  const items = kept.replaceAll(SEPARATOR, ',');
  const last = hasMore ? (JSON.parse(kept.slice(kept.lastIndexOf(SEPARATOR) + 1)) as { id: string; created_at: string }) : null;
  return {
    items: found!.compact === false ? compacted(`[${items}]`, false).slice(1, -1) : items,
    hasMore,
    last: last && { created_at: last.created_at, id: last.id },
  };
}

/** A page of events as the dashboard lists them, newest first. */
export function listEventSummaries(sql: Sql, tenant: Tenant, filters: EventFilters, page: PageRequest): Promise<Page<EventSummary>> {
  return fetchPage<EventSummary>(sql, `SELECT ${SUMMARY} FROM events`, eventFilter(tenant, filters), page);
}
