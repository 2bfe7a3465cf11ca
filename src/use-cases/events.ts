import { API_VERSION, newEventId, type EventType, type RelatedKind } from '../domain/events.js';
import type { Sql } from '../store/database.js';
import { insertEvent } from '../store/events.js';
import type { Tenant } from '../store/tenancy.js';

/** Appends an event in the caller's transaction: it commits with the change it describes, or not at all. */
export async function recordEvent(
  tx: Sql,
  tenant: Tenant,
  type: EventType,
  data: Record<string, unknown>,
  related: { id: string; kind: RelatedKind } | null,
): Promise<void> {
  const { id, createdAt } = newEventId();
  await insertEvent(tx, {
    id,
    organization_id: tenant.organizationId,
    mode: tenant.mode,
    type,
    api_version: API_VERSION,
    data,
    related_to: related?.id ?? null,
    related_to_kind: related?.kind ?? null,
    created_at: createdAt,
  });
}
