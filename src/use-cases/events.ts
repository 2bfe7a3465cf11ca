import { DomainError } from '../domain/errors.js';
import { API_VERSION, EVENT_ID_PATTERN, newEventId, type EventType, type RelatedKind } from '../domain/events.js';
import type { Sql } from '../store/database.js';
import { findEvent, insertEvent, listEvents, type EventFilters, type StoredEvent } from '../store/events.js';
import type { Page, PageRequest } from '../store/pagination.js';
import type { Tenant } from '../store/tenancy.js';

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

/** The event log as partners read it: their own events only, newest first. */
export class EventLog {
  list(sql: Sql, tenant: Tenant, filters: EventFilters, page: PageRequest): Promise<Page<StoredEvent>> {
    return listEvents(sql, tenant, filters, page);
  }

  /** Unknown, other-tenant and malformed ids are one and the same 404 (the contract). */
  async get(sql: Sql, tenant: Tenant, id: string): Promise<StoredEvent> {
    const row = EVENT_ID_PATTERN.test(id) ? await findEvent(sql, tenant, id) : null;
    if (!row) throw new DomainError('event_not_found', 'No event with that id.', 'event_id');
    return row;
  }
}
