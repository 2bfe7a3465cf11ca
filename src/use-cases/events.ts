import { DomainError } from '../domain/errors.js';
import { API_VERSION, EVENT_ID_PATTERN, newEventId, type EventType, type RelatedKind } from '../domain/events.js';
import type { Sql } from '../store/database.js';
import {
  findEventSummary,
  findEventText,
  insertEvent,
  listEventSummaries,
  listEventTexts,
  type EventFilters,
  type EventSummary,
  type EventText,
  type EventTextPage,
} from '../store/events.js';
import type { Page, PageRequest } from '../store/pagination.js';
import type { Tenant } from '../domain/tenancy.js';

/** An event as the dashboard lists it. */
export type { EventSummary };

/**
 * Appends an event in the caller's transaction: it commits with the change it describes, or not at all.
 * `now` is the business clock's reading for that change: the event's created_at and the time in its id.
 */
export async function recordEvent(
  tx: Sql,
  tenant: Tenant,
  type: EventType,
  data: Record<string, unknown>,
  related: { id: string; kind: RelatedKind } | null,
  now: Date,
): Promise<void> {
  await insertEvent(tx, {
    id: newEventId(now),
    organization_id: tenant.organizationId,
    mode: tenant.mode,
    type,
    api_version: API_VERSION,
    data,
    related_to: related?.id ?? null,
    related_to_kind: related?.kind ?? null,
    created_at: now,
  });
}

/**
 * The event log as partners read it: their own events only, newest first, each as its JSON text written by
 * `json` (the SQL of the Event object over the store's EVENT_FIELDS).
 */
export class EventLog {
  list(sql: Sql, tenant: Tenant, filters: EventFilters, page: PageRequest, json: string): Promise<EventTextPage> {
    return listEventTexts(sql, tenant, filters, page, json);
  }

  get(sql: Sql, tenant: Tenant, id: string, json: string): Promise<EventText> {
    return found(id, (valid) => findEventText(sql, tenant, valid, json));
  }

  summary(sql: Sql, tenant: Tenant, id: string): Promise<EventSummary> {
    return found(id, (valid) => findEventSummary(sql, tenant, valid));
  }

  /** The operator dashboard's list. */
  summaries(sql: Sql, tenant: Tenant, page: PageRequest): Promise<Page<EventSummary>> {
    return listEventSummaries(sql, tenant, {}, page);
  }
}

/** Unknown, other-tenant and malformed ids are one and the same 404 (the contract). */
async function found<Row>(id: string, find: (id: string) => Promise<Row | null>): Promise<Row> {
  const row = EVENT_ID_PATTERN.test(id) ? await find(id) : null;
  if (!row) throw new DomainError('event_not_found', 'No event with that id.', 'event_id');
  return row;
}
