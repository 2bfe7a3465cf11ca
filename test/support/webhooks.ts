import { pino } from 'pino';
import { expect } from 'vitest';
import type { KeyMode } from '../../src/domain/api-keys.js';
import { HttpWebhookTransport } from '../../src/providers/webhooks/http-transport.js';
import type { WebhookTransport } from '../../src/providers/webhooks/transport.js';
import type { Database } from '../../src/store/database.js';
import { WebhookDispatcher, type DispatcherSettings } from '../../src/workers/webhook-dispatcher.js';
import type { TestApp } from './app.js';

/**
 * Test defaults: a poll interval far longer than any test, so a prompt delivery proves the NOTIFY wake-up,
 * and a short retry schedule (three attempts, one second apart).
 */
export const TEST_DISPATCH: DispatcherSettings = {
  concurrency: 16,
  endpointConcurrency: 8,
  leaseSeconds: 30,
  pollSeconds: 600,
  retrySchedule: [0, 1, 1],
};

/** Dispatchers started by a test file, stopped by `stopDispatchers` (afterEach). */
const running: WebhookDispatcher[] = [];

export async function startDispatcher(
  db: Database,
  settings: Partial<DispatcherSettings> = {},
  transport: WebhookTransport = new HttpWebhookTransport({ timeoutMs: 2000 }),
): Promise<WebhookDispatcher> {
  const dispatcher = new WebhookDispatcher(db, transport, { ...TEST_DISPATCH, ...settings }, pino({ level: process.env.TEST_LOG ?? "silent" }));
  await dispatcher.start();
  running.push(dispatcher);
  return dispatcher;
}

export async function stopDispatchers(): Promise<void> {
  await Promise.all(running.splice(0).map((d) => d.stop()));
}

/** Configures the organization's endpoint through the operator API; returns its secret. */
export async function configureEndpoint(t: TestApp, organizationId: string, mode: KeyMode, url: string): Promise<string> {
  const res = await t.admin('PUT', `/organizations/${organizationId}/webhooks/${mode}`, { url });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { secret: string }).secret;
}

export interface DeliveryState {
  event_id: string;
  state: string;
  attempt_count: number;
  last_http_status: number | null;
  last_error: string | null;
}

export function deliveriesOf(t: TestApp, organizationId: string): Promise<DeliveryState[]> {
  return t.db.query<DeliveryState>(
    `SELECT d.event_id, d.state, d.attempt_count, d.last_http_status, d.last_error
     FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
     WHERE d.organization_id = $1 ORDER BY e.seq, d.created_at`,
    [organizationId],
  );
}

/** Polls until `check` holds (or fails with what it last saw): for states a background worker reaches. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
