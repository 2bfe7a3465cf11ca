import type { Static } from 'typebox';
import { expect } from 'vitest';
import type { KeyMode } from '../../src/domain/api-keys.js';
import type { ListEnvelope } from '../../src/http/pagination.js';
import type { WebhookDelivery } from '../../src/http/resources/webhook-delivery.js';
import type { BulkReplay, WebhookEndpoint } from '../../src/routes/admin/webhooks.js';
import type { Resolve } from '../../src/providers/webhooks/destination-policy.js';
import type { TestApp } from './app.js';

/**
 * Helpers for the operator side of webhooks (support/webhooks.ts has the delivery side) (endpoints, the outbox, replays). Response types come from the
 * service's own schemas. No dispatcher runs in these tests: deliveries stay as they were queued unless a test
 * settles them by hand (settle below).
 */

export type EndpointObject = Static<typeof WebhookEndpoint>;
export type DeliveryObject = Static<typeof WebhookDelivery>;
export type DeliveryPage = Static<ReturnType<typeof ListEnvelope<typeof WebhookDelivery>>>;
export type BulkReplayObject = Static<typeof BulkReplay>;

/** `whsec_` and the base64 of 32 random bytes, as Standard Webhooks libraries expect. */
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** Sandbox endpoints may be plain http on this machine; nothing listens here (no dispatcher runs anyway). */
export const SANDBOX_URL = 'http://localhost:9/hooks';

const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The whole answer that creates an enabled endpoint at `url`, secret included (API and CLI alike). */
export const newEndpoint = (organizationId: string, mode: KeyMode, url: string) => ({
  object: 'webhook_endpoint',
  organization_id: organizationId,
  mode,
  url,
  enabled: true,
  secret: expect.stringMatching(SECRET_PATTERN),
  previous_secret_expires_at: null,
  created_at: expect.stringMatching(ISO_TIMESTAMP),
  updated_at: expect.stringMatching(ISO_TIMESTAMP),
});

/** What every answer but the creating or rotating one shows of an endpoint. */
export function withoutSecret(endpoint: EndpointObject): Omit<EndpointObject, 'secret'> {
  const shown = { ...endpoint };
  delete shown.secret;
  return shown;
}

/** The path of an organization's endpoint for a mode, relative to /admin/v1. */
export const endpointPath = (organizationId: string, mode: KeyMode | string) => `/organizations/${organizationId}/webhooks/${mode}`;
export const deliveriesPath = (organizationId: string) => `/organizations/${organizationId}/webhook-deliveries`;

/** PUT an endpoint, which must answer `status` (201 when created, 200 when changed); returns the endpoint. */
export async function putEndpoint(
  t: TestApp,
  organizationId: string,
  mode: KeyMode,
  body: { url: string; enabled?: boolean } = { url: SANDBOX_URL },
  status = 201,
): Promise<EndpointObject> {
  const res = await t.admin('PUT', endpointPath(organizationId, mode), body);
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as EndpointObject;
}

/** GET the deliveries list, which must answer 200; `query` starts with `?` when given. */
export async function deliveryPage(t: TestApp, organizationId: string, query = ''): Promise<DeliveryPage> {
  const res = await t.admin('GET', `${deliveriesPath(organizationId)}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as DeliveryPage;
}

/** POST a bulk replay, which must answer 202; returns how many deliveries it queued. */
export async function bulkReplay(
  t: TestApp,
  organizationId: string,
  mode: KeyMode,
  body: { from: string; to: string; state?: string },
): Promise<number> {
  const res = await t.admin('POST', `${endpointPath(organizationId, mode)}/replay`, body);
  expect(res.statusCode, res.body).toBe(202);
  const replay = res.json() as BulkReplayObject;
  expect(replay).toEqual({ object: 'webhook_replay', mode, queued: expect.any(Number) });
  return replay.queued;
}

export interface DeliveryRecord {
  id: string;
  event_id: string;
  mode: KeyMode;
  origin: 'event' | 'replay' | 'bulk_replay';
  state: string;
  event_seq: string;
  attempt_count: number;
  last_error: string | null;
}

/** Every delivery row of an organization, straight from the table, oldest first (creation, then event order). */
export function deliveryRecords(t: TestApp, organizationId: string): Promise<DeliveryRecord[]> {
  return t.db.query<DeliveryRecord>(
    // Qualified names: a bare event_seq would order by the text output column.
    `SELECT d.id, d.event_id, d.mode, d.origin, d.state, d.event_seq::text, d.attempt_count, d.last_error
     FROM webhook_deliveries d WHERE d.organization_id = $1 ORDER BY d.created_at, d.event_seq, d.id`,
    [organizationId],
  );
}

export interface EventRecord {
  id: string;
  seq: string;
  type: string;
  created_at: Date;
}

/** Every event of an organization in one mode, in the order they were written. */
export function eventRecords(t: TestApp, organizationId: string, mode: KeyMode = 'test'): Promise<EventRecord[]> {
  return t.db.query<EventRecord>(
    'SELECT e.id, e.seq::text, e.type, e.created_at FROM events e WHERE e.organization_id = $1 AND e.mode = $2 ORDER BY e.seq',
    [organizationId, mode],
  );
}

/**
 * Ends a delivery as a dispatcher would have recorded it. No worker runs in these tests, so the row is
 * written directly (the CHECKs of migration 006 keep it a state a worker could have left).
 */
export async function settle(t: TestApp, deliveryId: string, state: 'dead' | 'delivered'): Promise<void> {
  const rows = await t.db.query(
    state === 'delivered'
      ? `UPDATE webhook_deliveries SET state = 'delivered', next_attempt_at = NULL, delivered_at = now(), attempt_count = 1,
           last_http_status = 200, updated_at = now() WHERE id = $1 RETURNING 1`
      : `UPDATE webhook_deliveries SET state = 'dead', next_attempt_at = NULL, attempt_count = 10,
           last_http_status = 500, last_error = 'HTTP 500', updated_at = now() WHERE id = $1 RETURNING 1`,
    [deliveryId],
  );
  expect(rows).toHaveLength(1);
}

/** Settles the latest delivery of each event. */
export async function settleLatest(t: TestApp, eventIds: readonly string[], state: 'dead' | 'delivered'): Promise<void> {
  for (const eventId of eventIds) {
    const [row] = await t.db.query<{ id: string }>(
      'SELECT id FROM webhook_deliveries WHERE event_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1',
      [eventId],
    );
    expect(row, `no delivery of ${eventId}`).toBeDefined();
    await settle(t, row!.id, state);
  }
}

/**
 * A resolver with answers set per hostname by the test (`answers.set(name, [...])`); a name without an
 * answer fails as the system resolver does for a name with no records.
 */
export function fakeResolver(): Resolve & { answers: Map<string, string[]> } {
  const answers = new Map<string, string[]>();
  const resolve = async (hostname: string): Promise<string[]> => {
    const found = answers.get(hostname);
    if (found) return found;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  return Object.assign(resolve, { answers });
}
