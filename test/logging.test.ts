import { Writable } from 'node:stream';
import { pino } from 'pino';
import { HttpRequestError } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.js';
import type { App } from '../src/http/route-config.js';
import { URL_FREE_SERIALIZERS } from '../src/logging.js';
import { HttpWebhookTransport } from '../src/providers/webhooks/http-transport.js';
import { WebhookDispatcher } from '../src/workers/webhook-dispatcher.js';
import { ADMIN_TOKEN, startTestApp, workerSerializers, type TestApp } from './support/app.js';
import { createIntent, simulate } from './support/partner.js';
import { deliveriesOf, eventually, TEST_DISPATCH } from './support/webhooks.js';

let t: TestApp;
let logged: App;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  logged = await buildApp({ ...t.ctx, config: { ...t.ctx.config, logLevel: 'debug' } }, { adminToken: ADMIN_TOKEN, logger: { stream }, serializers: workerSerializers() });
  await logged.ready();
});
afterAll(async () => {
  await logged.close();
  await t.close();
});

describe('operations: logs and request ids', () => {
  it('every response carries the server\'s own X-Request-Id, even when the client sends one', async () => {
    const tenant = await t.tenant();
    const own = await t.call(tenant.key, 'GET', '/health');
    expect(own.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    const given = await t.call(tenant.key, 'GET', '/health', { headers: { 'x-request-id': 'req_00000000000000000000000001' } });
    expect(given.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(given.headers['x-request-id']).not.toBe('req_00000000000000000000000001');
    const notFound = await t.call(null, 'GET', '/nope');
    expect(notFound.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
  });

  it('a client X-Request-Id is logged in a field of its own (clientRequestId), never as the request id', async () => {
    const tenant = await t.tenant();
    const res = await logged.inject({
      method: 'GET',
      url: '/connect/v1/health',
      headers: { authorization: `Bearer ${tenant.key}`, 'x-request-id': 'client-trace-42' },
    });
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.reqId === res.headers['x-request-id']);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(entries.every((e) => e.clientRequestId === 'client-trace-42')).toBe(true);
    expect(lines.some((line) => (JSON.parse(line) as Record<string, unknown>).reqId === 'client-trace-42')).toBe(false);
  });

  it('log lines are JSON with the request id, and never contain keys, tokens or Authorization headers', async () => {
    const tenant = await t.tenant();
    const created = await logged.inject({
      method: 'POST',
      url: `/admin/v1/organizations/${tenant.organizationId}/keys`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { mode: 'test' },
    });
    const res = await logged.inject({
      method: 'GET',
      url: '/connect/v1/health',
      headers: { authorization: `Bearer ${tenant.key}`, 'idempotency-key': 'idem-secret-value' },
    });
    expect(res.statusCode).toBe(200);
    const requestId = res.headers['x-request-id'];
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const ofRequest = entries.filter((e) => e.reqId === requestId);
    expect(ofRequest.length).toBeGreaterThanOrEqual(2);
    expect(entries.filter((e) => e.req || e.res).every((e) => typeof e.reqId === 'string')).toBe(true);
    const all = lines.join('\n');
    for (const secret of [tenant.key, created.json().key, ADMIN_TOKEN, 'idem-secret-value']) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('the dashboard in logs', () => {
  it('neither the operator token typed in, a wrong one, nor the session cookie is ever logged', async () => {
    const signIn = (token: string) =>
      logged.inject({
        method: 'POST',
        url: '/admin/sign-in',
        payload: new URLSearchParams({ token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect((await signIn('wrong-token-typed-by-someone')).statusCode).toBe(401);
    const session = String((await signIn(ADMIN_TOKEN)).headers['set-cookie']).split(';')[0]!;
    expect((await logged.inject({ method: 'GET', url: '/admin/organizations', headers: { cookie: session } })).statusCode).toBe(200);
    const all = lines.join('\n');
    for (const secret of [ADMIN_TOKEN, 'wrong-token-typed-by-someone', session.split('=')[1]!]) expect(all).not.toContain(secret);
  });
});

describe('authentication lockouts in logs', () => {
  it('the failure that locks an address out logs one warning naming the address, the surface and the seconds', async () => {
    const address = '192.0.2.77';
    const wrong = () =>
      logged.inject({ method: 'GET', url: '/admin/v1/organizations', headers: { authorization: 'Bearer not-the-token' }, remoteAddress: address });
    for (let i = 0; i <= t.ctx.config.authFailuresPerMinute; i++) await wrong();
    const lockouts = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.address === address);
    expect(lockouts).toEqual([expect.objectContaining({ level: 40, surface: 'operator', seconds: expect.any(Number), msg: expect.stringContaining(`authentication lockout: ${address} on operator`) })]);
  });
});

describe('webhook secrets and destinations in logs', () => {
  it('configuring and rotating an endpoint, and failing deliveries to it, log neither the secret nor the URL path or query', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 100_000 } });
    const url = 'http://127.0.0.1:9/hooks/private-path?token=partner-own-token';
    const admin = async (method: 'PUT' | 'POST', path: string, payload: Record<string, unknown>) =>
      (
        await logged.inject({
          method,
          url: `/admin/v1/organizations/${tenant.organizationId}${path}`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          payload,
        })
      ).json() as { secret: string };
    const secrets = [
      (await admin('PUT', '/webhooks/test', { url })).secret,
      (await admin('POST', '/webhooks/test/rotate-secret', {})).secret,
    ];
    expect(secrets.every((s) => s.startsWith('whsec_'))).toBe(true);

    const workerLines: string[] = [];
    const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _e, done) => (workerLines.push(String(chunk)), done()) }));
    const transport = new HttpWebhookTransport({ timeoutMs: 1000 });
    const dispatcher = new WebhookDispatcher(t.db, transport, { ...TEST_DISPATCH, retrySchedule: [0] }, log);
    await dispatcher.start();
    try {
      const intent = await createIntent(t, tenant.key);
      await simulate(t, tenant.key, intent.id, { amount: '4' });
      await eventually(
        () => deliveriesOf(t, tenant.organizationId),
        (rows) => rows[0]?.state === 'dead',
      );
    } finally {
      await dispatcher.stop();
    }
    expect(workerLines.join('')).toContain('http://127.0.0.1:9');
    for (const text of [...lines, ...workerLines]) {
      for (const secret of secrets) expect(text).not.toContain(secret.slice('whsec_'.length));
      expect(text).not.toContain('partner-own-token');
      expect(text).not.toContain('private-path');
    }
  });
});

describe('provider endpoints in logged errors', () => {
  it("an error, a reason or an error text logged by a process names no URL, so no RPC provider's API key (path or query) reaches a line", () => {
    const written: string[] = [];
    const log = pino({ serializers: URL_FREE_SERIALIZERS }, new Writable({ write: (chunk, _e, done) => (written.push(String(chunk)), done()) }));
    const url = 'https://eth.provider.example/v2/PATHKEY1?apikey=QUERYKEY2';
    const viemError = new HttpRequestError({ url, status: 500, details: 'upstream unavailable', body: { method: 'eth_chainId' } });
    log.error({ err: viemError }, 'a job failed');
    log.error({ err: new Error('Solana getTransaction failed', { cause: new Error(`fetch ${url} failed`) }) }, 'a job failed');
    log.warn({ reason: `the node at ${url} did not answer`, error: `the node at ${url} did not answer` }, 'still open');
    expect(written).toHaveLength(3);
    const text = written.join('');
    for (const secret of ['PATHKEY1', 'QUERYKEY2', 'eth.provider.example']) expect(text).not.toContain(secret);
    expect(text).toContain('HTTP request failed');
    expect(text).toContain('did not answer');
  });
});
