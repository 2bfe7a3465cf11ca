import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { timedDatabase } from '../src/metrics/database.js';
import { serveMetrics } from '../src/metrics/listener.js';
import { Metrics } from '../src/metrics/metrics.js';
import { simulatedTxHash } from '../src/providers/chains/sandbox-chain.js';
import type { Database } from '../src/store/database.js';
import { counted, startBackgroundWork } from '../src/workers/background.js';
import { ADMIN_TOKEN, withCredentialNotificationsHeld, startTestApp, type TestApp } from './support/app.js';
import { migratedDataDir, onPostgres } from './support/database.js';
import { parseExposition, valueOf, type Sample } from './support/metrics.js';
import { createAddress, createIntent, createTenant, creditDirect, postIntent, simulate, simulateAddress } from './support/partner.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { configureEndpoint, eventually } from './support/webhooks.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const silent = pino({ level: 'silent' });

/** What the app's registry holds now (read directly: the route is tested on its own, and a scrape is a request too). */
const scrape = async (app: TestApp = t): Promise<Sample[]> => parseExposition(await app.ctx.metrics.scrape());

/** How much the series `name{labels}` (summed) grew while `work` ran. */
async function growth(name: string, labels: Record<string, string>, work: () => Promise<unknown>, app: TestApp = t): Promise<number> {
  const before = valueOf(await scrape(app), name, labels) ?? 0;
  await work();
  return (valueOf(await scrape(app), name, labels) ?? 0) - before;
}

const CREDITED = 'connect_deposits_credited_total';
const REJECTIONS = 'connect_rate_limit_rejections_total';

describe('exposure', () => {
  it('GET /admin/v1/metrics needs the operator token: 401 without it, 401 with a partner key', async () => {
    const tenant = await createTenant(t);
    const anonymous = await t.app.inject({ method: 'GET', url: '/admin/v1/metrics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('authentication_required');
    const partner = await t.app.inject({ method: 'GET', url: '/admin/v1/metrics', headers: { authorization: `Bearer ${tenant.key}` } });
    expect(partner.statusCode).toBe(401);
  });

  it("answers the Prometheus text format with prom-client's content type, process metrics included", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
    const samples = parseExposition(res.body);
    expect(valueOf(samples, 'connect_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'connect_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('is in the operator OpenAPI document and not in the partner one', async () => {
    const operator = (await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json' })).json();
    const partner = (await t.app.inject({ method: 'GET', url: '/connect/v1/openapi.json' })).json();
    expect(operator.paths['/admin/v1/metrics'].get.security).toEqual([{ operatorToken: [] }]);
    expect(Object.keys(partner.paths).filter((path) => path.includes('metrics'))).toEqual([]);
  });

  it('CONNECT_METRICS_ADDRESS serves GET /metrics there without a token, and nothing else', async () => {
    // A request of its own to count, whichever tests ran before this one.
    expect((await t.call(null, 'GET', '/health')).statusCode).toBe(401);
    const listener = await serveMetrics(t.ctx.metrics, { host: '127.0.0.1', port: 0 }, silent);
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const res = await fetch(listener.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
      expect(valueOf(parseExposition(await res.text()), 'connect_http_requests_total')).toBeGreaterThan(0);
      expect((await fetch(new URL('/admin/v1/organizations', listener.url))).status).toBe(404);
      expect((await fetch(listener.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await listener.close();
    }
  });

  it('the server started with CONNECT_METRICS_ADDRESS serves its metrics there and says where', { timeout: 120_000 }, async () => {
    const dataDir = await migratedDataDir('connect-metrics-');
    const server = spawn(process.execPath, ['dist/main.js'], {
      env: { ...process.env, CONNECT_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: '', CONNECT_METRICS_ADDRESS: '127.0.0.1:0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const url = await eventually(async () => /Metrics, without a token: (\S+)/.exec(output)?.[1], (found) => found !== undefined, 60_000);
      const res = await fetch(url!);
      expect(res.status).toBe(200);
      expect(valueOf(parseExposition(await res.text()), 'connect_process_start_time_seconds')).toBeGreaterThan(0);
    } finally {
      server.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('CONNECT_METRICS_ADDRESS is host:port or [ipv6]:port; anything else refuses to start', () => {
    expect(loadConfig({}).metricsAddress).toBeUndefined();
    expect(loadConfig({ CONNECT_METRICS_ADDRESS: '10.0.0.5:9464' }).metricsAddress).toEqual({ host: '10.0.0.5', port: 9464 });
    expect(loadConfig({ CONNECT_METRICS_ADDRESS: '[::1]:9464' }).metricsAddress).toEqual({ host: '::1', port: 9464 });
    for (const bad of ['9464', 'localhost', 'localhost:', '::1:9464', 'localhost:65536']) {
      expect(() => loadConfig({ CONNECT_METRICS_ADDRESS: bad }), bad).toThrow('CONNECT_METRICS_ADDRESS must be host:port');
    }
  });
});

describe('HTTP requests', () => {
  it('are counted and timed per method, route pattern and status, never per raw URL', async () => {
    const tenant = await createTenant(t);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const labels = { method: 'GET', route: '/connect/v1/payment-intents/:payment_intent_id', status: '404' };
    const before = await scrape();
    for (const id of ids) expect((await t.call(tenant.key, 'GET', `/payment-intents/${id}`)).statusCode).toBe(404);
    const after = await scrape();
    const grew = (name: string, extra: Record<string, string> = {}) =>
      (valueOf(after, name, { ...labels, ...extra }) ?? 0) - (valueOf(before, name, { ...labels, ...extra }) ?? 0);
    expect(grew('connect_http_requests_total')).toBe(3);
    expect(grew('connect_http_request_duration_seconds_count')).toBe(3);
    expect(grew('connect_http_request_duration_seconds_bucket', { le: '+Inf' })).toBe(3);
    expect(grew('connect_http_request_duration_seconds_sum')).toBeGreaterThan(0);
    expect(after.filter((s) => ids.some((id) => Object.values(s.labels).some((value) => value.includes(id))))).toEqual([]);
  });

  it('a request no route matches is counted under route="unmatched", whatever its URL', async () => {
    const labels = { method: 'GET', route: 'unmatched', status: '404' };
    const grew = await growth('connect_http_requests_total', labels, async () => {
      for (const path of ['/connect/v1/no-such-thing', `/nowhere/${randomUUID()}`]) {
        expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
      }
    });
    expect(grew).toBe(2);
  });
});

describe('database', () => {
  it('times every statement (inside transactions too) as kind="query" and every whole transaction as kind="transaction"', async () => {
    const metrics = new Metrics(t.db);
    const db = timedDatabase(t.db, metrics.statementDuration);
    await db.query('SELECT 1');
    await db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await tx.query('SELECT 2');
    });
    const samples = parseExposition(await metrics.scrape());
    expect(valueOf(samples, 'connect_db_statement_duration_seconds_count', { kind: 'query' })).toBe(3);
    expect(valueOf(samples, 'connect_db_statement_duration_seconds_count', { kind: 'transaction' })).toBe(1);
  });

  it("the context's database is the timed one: an IDEM request in a transaction (POST /addresses) adds one", async () => {
    const tenant = await createTenant(t);
    const grew = await growth('connect_db_statement_duration_seconds_count', { kind: 'transaction' }, () => createAddress(t, tenant.key));
    expect(grew).toBe(1);
  });

  it('a create-intent is two statements (the replay check and the write) and no transaction', async () => {
    const tenant = await createTenant(t);
    await t.call(tenant.key, 'GET', '/health'); // the key's first use reads it into the cache
    await withCredentialNotificationsHeld(t, async () => {
      const transactions = await growth('connect_db_statement_duration_seconds_count', { kind: 'transaction' }, async () => {
        const statements = await growth('connect_db_statement_duration_seconds_count', { kind: 'query' }, () => createIntent(t, tenant.key));
        expect(statements).toBe(2);
      });
      expect(transactions).toBe(0);
    });
  });

  it('a transaction attempt aborted for a deadlock counts one conflict, and the transaction runs again', async () => {
    let attempts = 0;
    const grew = await growth('connect_db_transaction_conflicts_total', {}, () =>
      t.db.transaction(async (tx) => {
        attempts++;
        if (attempts === 1) await tx.exec("DO $$ BEGIN RAISE EXCEPTION 'deadlock (test)' USING ERRCODE = '40P01'; END $$");
      }),
    );
    expect({ grew, attempts }).toEqual({ grew: 1, attempts: 2 });
  });

  it.runIf(onPostgres)('pool gauges report connections in use, idle and waiting', async () => {
    const samples = await scrape();
    const state = (name: string) => valueOf(samples, 'connect_db_pool_connections', { state: name });
    // The scrape's own query has just given its connection back.
    expect(state('in_use')).toBe(0);
    expect(state('idle')).toBeGreaterThanOrEqual(1);
    expect(state('waiting')).toBe(0);
  });

  it.runIf(!onPostgres)('on PGlite, which has no pool, the pool gauge has no series', async () => {
    expect(valueOf(await scrape(), 'connect_db_pool_connections')).toBeUndefined();
  });
});

describe('idempotency and rate limits', () => {
  it('a replayed IDEM request counts one replay; its first run counts none', async () => {
    const tenant = await createTenant(t);
    const key = randomUUID();
    const body = { amount: '10', currencies: ['USDC'] };
    const first = await growth('connect_idempotency_replays_total', {}, async () => expect((await postIntent(t, tenant.key, body, key)).statusCode).toBe(201));
    const again = await growth('connect_idempotency_replays_total', {}, async () => {
      const res = await postIntent(t, tenant.key, body, key);
      expect(res.headers['idempotent-replayed']).toBe('true');
    });
    expect([first, again]).toEqual([0, 1]);
  });

  it('a 429 for a key over its rate_limit_rps counts one limit="key" rejection', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 1 } });
    const grew = await growth(REJECTIONS, { limit: 'key' }, async () => {
      for (let i = 0; i < 100; i++) if ((await t.call(tenant.key, 'GET', '/health')).statusCode === 429) return;
      throw new Error('no 429 within 100 requests');
    });
    expect(grew).toBe(1);
  });

  it('a 429 for too many failed authentications counts one limit="auth_failures" rejection', async () => {
    const strict = await startTestApp({ authFailuresPerMinute: 1 }, t.testDb);
    try {
      const statuses: number[] = [];
      const grew = await growth(
        REJECTIONS,
        { limit: 'auth_failures' },
        async () => {
          // Well-formed keys that do not exist: a malformed header is refused before failures are checked.
          for (let i = 0; i < 2; i++) statuses.push((await strict.call(`sk_test_${randomUUID().replaceAll('-', '')}`, 'GET', '/health')).statusCode);
        },
        strict,
      );
      expect(statuses).toEqual([401, 429]);
      expect(grew).toBe(1);
    } finally {
      await strict.close();
    }
  });
});

describe('deposits credited', () => {
  it('each simulated deposit counts one credit in its mode', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    const grew = await growth(CREDITED, { mode: 'test' }, async () => {
      await simulate(t, tenant.key, intent.id, { amount: '4' });
      await simulate(t, tenant.key, intent.id);
    });
    expect(grew).toBe(2);
  });

  it('a simulation on a completed intent credits nothing and counts nothing', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id);
    expect(await growth(CREDITED, {}, () => simulate(t, tenant.key, intent.id))).toBe(0);
  });

  it('an on-chain deposit credited before is not counted again', async () => {
    const tenant = await createTenant(t);
    const [address, other] = [await createAddress(t, tenant.key), await createAddress(t, tenant.key)];
    // The simulator's first deposit to `address` will carry this hash: a chain watcher has seen it already.
    const txHash = simulatedTxHash(t.ctx.catalog.addressFormat('solana'), `${address.id}:1`);
    await creditDirect(t, tenant.organizationId, { addressId: other.id, network: 'solana', amount: '1', txHash });
    expect(await growth(CREDITED, {}, () => simulateAddress(t, tenant.key, address.id, '1'))).toBe(0);
  });

  it('a credit whose transaction does not commit is not counted', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    const commitFails: Database = {
      ...t.db,
      transaction: (work) =>
        t.db.transaction(async (tx) => {
          await work(tx);
          throw new Error('the commit failed');
        }),
    };
    const failing = await startTestApp({}, { ...t.testDb, db: commitFails });
    try {
      const grew = await growth(CREDITED, {}, async () => expect((await failing.call(tenant.key, 'POST', `/test/payment-intents/${intent.id}/simulate-deposit`)).statusCode).toBe(500), failing);
      expect(grew).toBe(0);
    } finally {
      await failing.close();
    }
  });
});

describe('chain watchers', () => {
  it("a watcher's passes are counted by network and outcome; its last success time moves only on a pass that ends well", async () => {
    let fail = false;
    const watcher = {
      network: 'tron',
      tick: async () => {
        if (fail) throw new Error('no answer');
        return 2;
      },
    };
    const ok = { network: 'tron', outcome: 'ok' };
    const failed = { network: 'tron', outcome: 'failed' };
    const lastSuccess = async () => valueOf(await scrape(), 'connect_chain_watcher_last_success_timestamp_seconds', { network: 'tron' });
    expect(await growth('connect_chain_watcher_passes_total', ok, async () => expect(await counted(watcher, t.ctx.metrics)).toBe(2))).toBe(1);
    const after = await lastSuccess();
    expect(after).toBeGreaterThan(Date.now() / 1000 - 60);
    fail = true;
    expect(await growth('connect_chain_watcher_passes_total', failed, () => expect(counted(watcher, t.ctx.metrics)).rejects.toThrow('no answer'))).toBe(1);
    expect(await lastSuccess()).toBe(after);
  });
});

describe('webhooks', () => {
  it('the outstanding gauge counts the deliveries waiting, by state', async () => {
    const tenant = await createTenant(t);
    await configureEndpoint(t, tenant.organizationId, 'test', 'http://127.0.0.1:9/x');
    const intent = await createIntent(t, tenant.key);
    const grew = await growth('connect_webhook_deliveries_outstanding', { state: 'pending' }, () => simulate(t, tenant.key, intent.id));
    // payment_received and completed: two events, one delivery each, no worker running.
    expect(grew).toBe(2);
    // Disabling ends them (dead), so the workers of later tests find nothing of this one's.
    const off = await growth('connect_webhook_deliveries_outstanding', {}, () =>
      t.admin('PUT', `/organizations/${tenant.organizationId}/webhooks/test`, { url: 'http://127.0.0.1:9/x', enabled: false }),
    );
    expect(off).toBe(-2);
  });

  describe('delivered by the background work', () => {
    let w: TestApp;
    let stop: () => Promise<void>;
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      w = await startTestApp({ webhookRetrySchedule: [0, 1, 1], webhookPollSeconds: 600 }, t.testDb);
      stop = await startBackgroundWork(w.ctx, silent);
    });
    afterAll(async () => {
      await stop();
      await w.ctx.webhookTransport.close();
      await w.close();
    });
    afterEach(() => receiver.close());

    /** The deliveries of a sandbox organization go to a fresh receiver; returns its key. */
    async function partnerWithReceiver(): Promise<string> {
      receiver = await WebhookReceiver.start();
      const tenant = await createTenant(w);
      await configureEndpoint(w, tenant.organizationId, 'test', receiver.url);
      return tenant.key;
    }

    const attempts = (samples: Sample[]) =>
      Object.fromEntries(['delivered', 'failed', 'dead'].map((outcome) => [outcome, valueOf(samples, 'connect_webhook_delivery_attempts_total', { outcome }) ?? 0]));

    it('attempts are counted by outcome: a 500 failed, its retry answered 2xx delivered, a 410 dead', async () => {
      const key = await partnerWithReceiver();
      receiver.respond = (_request, index) => ({ status: [500, 200, 410][index] ?? 200 });
      const before = attempts(await scrape(w));
      await simulate(w, key, (await createIntent(w, key)).id);
      await receiver.waitFor(3);
      const after = await eventually(
        async () => attempts(await scrape(w)),
        (now) => now.dead! > before.dead!,
      );
      expect({ delivered: after.delivered! - before.delivered!, failed: after.failed! - before.failed!, dead: after.dead! - before.dead! }).toEqual({
        delivered: 1,
        failed: 1,
        dead: 1,
      });
    });

    it("the delivery latency runs from the event's creation to the receiver's 2xx", async () => {
      const key = await partnerWithReceiver();
      receiver.respond = () => ({ status: 200, delayMs: 300 });
      const histogram = (samples: Sample[]) => ({
        count: valueOf(samples, 'connect_webhook_delivery_seconds_count') ?? 0,
        sum: valueOf(samples, 'connect_webhook_delivery_seconds_sum') ?? 0,
        under250ms: valueOf(samples, 'connect_webhook_delivery_seconds_bucket', { le: '0.25' }) ?? 0,
      });
      const before = histogram(await scrape(w));
      const started = Date.now();
      await simulateAddress(w, key, (await createAddress(w, key)).id, '1');
      const after = await eventually(
        async () => histogram(await scrape(w)),
        (now) => now.count > before.count,
      );
      expect(after.count - before.count).toBe(1);
      expect(after.under250ms - before.under250ms).toBe(0);
      expect(after.sum - before.sum).toBeGreaterThanOrEqual(0.3);
      expect(after.sum - before.sum).toBeLessThanOrEqual((Date.now() - started) / 1000);
    });
  });

  describe.runIf(onPostgres)('in a worker process', () => {
    let worker: ChildProcess | undefined;
    let receiver: WebhookReceiver;
    afterAll(async () => {
      worker?.kill('SIGKILL');
      await receiver?.close();
    });

    /** `connect-payments worker` on this test's schema; resolves to the URL of its metrics listener. */
    async function startWorker(): Promise<string> {
      const [row] = await t.db.query<{ schema: string }>('SELECT current_schema() AS schema');
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${row!.schema}`);
      worker = spawn(process.execPath, ['bin/connect-payments.js', 'worker'], {
        env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'info', CONNECT_METRICS_ADDRESS: '127.0.0.1:0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      worker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const started = await eventually(
        async () => output.split('\n').find((line) => line.includes('"worker started"')),
        (line) => line !== undefined,
        30_000,
      );
      return (JSON.parse(started!) as { metrics: string }).metrics;
    }

    it('CONNECT_METRICS_ADDRESS makes `connect-payments worker` serve the metrics of the deliveries it makes', async () => {
      receiver = await WebhookReceiver.start();
      const tenant = await createTenant(t);
      await configureEndpoint(t, tenant.organizationId, 'test', receiver.url);
      const metricsUrl = await startWorker();
      await simulate(t, tenant.key, (await createIntent(t, tenant.key)).id);
      await receiver.waitFor(2, 30_000);
      const delivered = async () =>
        valueOf(parseExposition(await (await fetch(metricsUrl)).text()), 'connect_webhook_delivery_attempts_total', { outcome: 'delivered' });
      expect(await eventually(delivered, (count) => count === 2)).toBe(2);
    });
  });
});
