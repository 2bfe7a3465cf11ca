import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import { createIntent, createTenant, simulate } from './support/partner.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { configureEndpoint, deliveriesOf, eventually, startDispatcher, stopDispatchers } from './support/webhooks.js';

/**
 * `connect-payments worker` as its own process, sharing the test's PostgreSQL schema. A separate process
 * needs PostgreSQL: the embedded database belongs to one process.
 */
describe.runIf(onPostgres)('the worker process', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(async () => {
    worker?.kill('SIGKILL');
    await stopDispatchers();
    await receiver.close();
  });

  async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
    const [row] = await t.db.query<{ schema: string }>('SELECT current_schema() AS schema');
    const schema = row!.schema;
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const child = spawn(process.execPath, ['bin/connect-payments.js', 'worker'], {
      env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = child;
    return child;
  }

  const exited = (child: ChildProcess) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );

  it('a worker killed with SIGKILL in the middle of a delivery loses nothing: another takes it over once the lease lapses', async () => {
    receiver = await WebhookReceiver.start();
    receiver.respond = (_request, index) => (index === 0 ? 'hang' : { status: 200 });
    const tenant = await createTenant(t);
    await configureEndpoint(t, tenant.organizationId, 'test', receiver.url);
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '4' });

    const child = await startWorker({ CONNECT_WEBHOOK_TIMEOUT_MS: '1500', CONNECT_WEBHOOK_LEASE_SECONDS: '3' });
    await receiver.waitFor(1, 30_000);
    const gone = exited(child);
    child.kill('SIGKILL');
    expect(await gone).toEqual({ code: null, signal: 'SIGKILL' });
    const [held] = await deliveriesOf(t, tenant.organizationId);
    expect(held).toMatchObject({ state: 'pending', attempt_count: 1 });

    // A fresh dispatcher finds the delivery once the dead worker's lease lapses (by polling: nothing notifies that).
    await startDispatcher(t.db, { leaseSeconds: 3, pollSeconds: 1 });
    await receiver.waitFor(2);
    const [row] = await eventually(
      () => deliveriesOf(t, tenant.organizationId),
      (rows) => rows[0]?.state === 'delivered',
    );
    expect(row!.attempt_count).toBe(2);
    expect(receiver.received[1]!.json.event_id).toBe(receiver.received[0]!.json.event_id);
  });

  it('a worker delivers what is queued after it started (woken by NOTIFY), and SIGTERM stops it cleanly', async () => {
    receiver = await WebhookReceiver.start();
    const tenant = await createTenant(t);
    await configureEndpoint(t, tenant.organizationId, 'test', receiver.url);
    const child = await startWorker({ CONNECT_WEBHOOK_POLL_SECONDS: '600', LOG_LEVEL: 'info' });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(
      async () => output,
      (text) => text.includes('worker started'),
      30_000,
    );

    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id);
    await receiver.waitFor(2);
    expect(receiver.types()).toEqual(['payment_intent.payment_received', 'payment_intent.completed']);

    const stopped = exited(child);
    child.kill('SIGTERM');
    expect(await stopped).toEqual({ code: 0, signal: null });
    expect(output).toContain('"worker": "stopped"');
  });
});
