import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type OpenDatabase } from '../src/cli/run.js';
import { startTestApp, workerSerializers, type TestApp } from './support/app.js';
import { createAddress, createIntent, createTenant, simulate, simulateAddress } from './support/partner.js';
import {
  deliveriesPath,
  deliveryPage,
  deliveryRecords,
  endpointPath,
  eventRecords,
  putEndpoint,
  newEndpoint,
  SANDBOX_URL,
  SECRET_PATTERN,
  settleLatest,
  withoutSecret,
} from './support/webhook-admin.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const UNKNOWN_ORG = '00000000-0000-4000-8000-000000000000';
/** A public IP literal: a live URL the CLI accepts without resolving any name. */
const LIVE_URL = 'https://93.184.216.34/hooks';

/** The test database, kept open for the next run: runCli closes what it is given. */
const testDatabase: OpenDatabase = async () => ({ ...t.db, close: async () => {} });

/** One in-process run, with what it printed. */
async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const code = await runCli(argv, io, testDatabase, process.env, workerSerializers());
  return { code, stdout, stderr };
}

/** Runs a verb that must succeed and returns what it printed. */
async function ok(...argv: string[]) {
  const run = await cli(argv);
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

const newOrg = async (): Promise<string> => (await ok('org', 'create', '--name', 'Hooks Co', '--status', 'active')).id;

/** A tenant (with a partner key) whose sandbox endpoint the CLI sets, and the two events of a paid intent. */
async function tenantWithEvents() {
  const tenant = await createTenant(t);
  const org = tenant.organizationId;
  await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL);
  await simulate(t, tenant.key, (await createIntent(t, tenant.key)).id);
  return { tenant, org, events: await eventRecords(t, org) };
}

async function storedSecret(organizationId: string, mode: string): Promise<string> {
  const [row] = await t.db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE organization_id = $1 AND mode = $2', [
    organizationId,
    mode,
  ]);
  expect(row).toBeDefined();
  return row!.secret;
}

describe('webhook set', () => {
  it('creates the endpoint and prints it with its secret, in the shape the API answers', async () => {
    const org = await newOrg();
    const created = await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL);
    expect(created).toEqual(newEndpoint(org, 'test', SANDBOX_URL));
    expect(await storedSecret(org, 'test')).toBe(created.secret);
    const { data } = (await t.admin('GET', `/organizations/${org}/webhooks`)).json();
    expect(data).toEqual([withoutSecret(created)]);
  });

  it('on an existing endpoint, prints it without the secret, which stays the same (as the API answers 200)', async () => {
    const org = await newOrg();
    const created = await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL);
    const changed = await ok('webhook', 'set', org, 'test', '--url', 'http://127.0.0.1:4000/moved');
    expect(changed).not.toHaveProperty('secret');
    expect(changed).toMatchObject({ url: 'http://127.0.0.1:4000/moved', enabled: true, created_at: created.created_at });
    expect(await storedSecret(org, 'test')).toBe(created.secret);
    const api = await t.admin('PUT', endpointPath(org, 'test'), { url: 'http://127.0.0.1:4000/moved' });
    expect(Object.keys(api.json()).sort()).toEqual(Object.keys(changed).sort());
  });

  it('--disabled disables the endpoint; set without it enables it again', async () => {
    const org = await newOrg();
    expect(await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL, '--disabled')).toMatchObject({ enabled: false });
    expect(await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL)).toMatchObject({ enabled: true });
  });

  it("--disabled ends the mode's waiting deliveries as the API does", async () => {
    const { org, events } = await tenantWithEvents();
    await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL, '--disabled');
    const rows = await deliveryRecords(t, org);
    expect(rows.map((row) => [row.event_id, row.state, row.last_error])).toEqual(events.map((e) => [e.id, 'dead', 'endpoint disabled']));
  });

  it('a live endpoint at a public https address is accepted', async () => {
    const org = await newOrg();
    expect(await ok('webhook', 'set', org, 'live', '--url', LIVE_URL)).toMatchObject({ mode: 'live', url: LIVE_URL, enabled: true });
  });
});

describe('webhook list', () => {
  it('prints exactly what GET /organizations/{id}/webhooks answers, with no secret', async () => {
    const org = await newOrg();
    await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL);
    await ok('webhook', 'set', org, 'live', '--url', LIVE_URL, '--disabled');
    const listed = await ok('webhook', 'list', org);
    expect(listed.data.map((e: { mode: string; enabled: boolean }) => [e.mode, e.enabled])).toEqual([
      ['live', false],
      ['test', true],
    ]);
    expect(listed).toEqual((await t.admin('GET', `/organizations/${org}/webhooks`)).json());
    expect(JSON.stringify(listed)).not.toContain('whsec_');
  });
});

describe('webhook rotate-secret', () => {
  it('prints the endpoint with a new secret; the old one keeps signing for 24 h by default', async () => {
    const org = await newOrg();
    const created = await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL);
    const rotated = await ok('webhook', 'rotate-secret', org, 'test');
    expect(rotated).toMatchObject({ object: 'webhook_endpoint', mode: 'test', secret: expect.stringMatching(SECRET_PATTERN) });
    expect(rotated.secret).not.toBe(created.secret);
    expect(await storedSecret(org, 'test')).toBe(rotated.secret);
    const hoursAhead = (Date.parse(rotated.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hoursAhead).toBeGreaterThan(23.9);
    expect(hoursAhead).toBeLessThan(24.1);
  });

  it('--previous-secret-valid-seconds sets the grace; 0 retires the old secret at once', async () => {
    const org = await newOrg();
    await ok('webhook', 'set', org, 'test', '--url', SANDBOX_URL);
    const hour = await ok('webhook', 'rotate-secret', org, 'test', '--previous-secret-valid-seconds', '3600');
    expect((Date.parse(hour.previous_secret_expires_at) - Date.now()) / 1000).toBeGreaterThan(3600 - 60);
    expect((Date.parse(hour.previous_secret_expires_at) - Date.now()) / 1000).toBeLessThan(3600 + 60);
    const now = await ok('webhook', 'rotate-secret', org, 'test', '--previous-secret-valid-seconds', '0');
    expect(now).toMatchObject({ previous_secret_expires_at: null, secret: expect.stringMatching(SECRET_PATTERN) });
  });
});

describe('webhook deliveries', () => {
  it('prints exactly what GET /organizations/{id}/webhook-deliveries answers, filters included', async () => {
    const { org, events } = await tenantWithEvents();
    await settleLatest(t, [events[0]!.id], 'dead');
    const same = async (flags: string[], query: string) =>
      expect(await ok('webhook', 'deliveries', org, ...flags)).toEqual(await deliveryPage(t, org, query));
    await same([], '');
    await same(['--event-id', events[1]!.id], `?event_id=${events[1]!.id}`);
    await same(['--status', 'dead'], '?status=dead');
    await same(['--mode', 'live'], '?mode=live');
    expect((await ok('webhook', 'deliveries', org, '--status', 'dead')).data.map((d: { event_id: string }) => d.event_id)).toEqual([
      events[0]!.id,
    ]);
    expect((await ok('webhook', 'deliveries', org, '--event-id', events[1]!.id)).data).toHaveLength(1);
  });

  it('pages with --limit and --cursor, newest first; a cursor the API printed works too', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    const address = await createAddress(t, tenant.key);
    for (let i = 0; i < 3; i++) await simulateAddress(t, tenant.key, address.id, '1');
    const all = (await deliveryPage(t, org)).data.map((d) => d.id);
    expect(all).toHaveLength(3);
    const first = await ok('webhook', 'deliveries', org, '--limit', '2');
    expect(first).toMatchObject({ has_more: true, cursor: expect.any(String) });
    const second = await ok('webhook', 'deliveries', org, '--limit', '2', '--cursor', first.cursor);
    expect(second).toMatchObject({ has_more: false, cursor: null });
    expect([...first.data, ...second.data].map((d: { id: string }) => d.id)).toEqual(all);
    const fromApi = (await t.admin('GET', `${deliveriesPath(org)}?limit=1`)).json();
    expect((await ok('webhook', 'deliveries', org, '--cursor', fromApi.cursor)).data.map((d: { id: string }) => d.id)).toEqual(all.slice(1));
  });
});

describe('webhook replay', () => {
  it('prints {object: webhook_replay, mode, queued} and queues the dead events by default', async () => {
    const { org, events } = await tenantWithEvents();
    await settleLatest(t, [events[1]!.id], 'dead');
    await settleLatest(t, [events[0]!.id], 'delivered');
    expect(await ok('webhook', 'replay', org, 'test', '--from', '2000-01-01', '--to', '2999-12-31')).toEqual({
      object: 'webhook_replay',
      mode: 'test',
      queued: 1,
    });
    const queued = (await deliveryRecords(t, org)).filter((row) => row.origin === 'bulk_replay');
    expect(queued.map((row) => [row.event_id, row.state])).toEqual([[events[1]!.id, 'pending']]);
  });

  it('--state chooses how the latest delivery ended', async () => {
    const { org, events } = await tenantWithEvents();
    await settleLatest(t, [events[0]!.id], 'delivered');
    const replay = await ok('webhook', 'replay', org, 'test', '--from', '2000-01-01', '--to', '2999-12-31', '--state', 'delivered');
    expect(replay).toEqual({ object: 'webhook_replay', mode: 'test', queued: 1 });
    const queued = (await deliveryRecords(t, org)).filter((row) => row.origin === 'bulk_replay');
    expect(queued.map((row) => row.event_id)).toEqual([events[0]!.id]);
  });

  it('--from and --to bound the events by created_at', async () => {
    const { org, events } = await tenantWithEvents();
    await settleLatest(t, events.map((e) => e.id), 'dead');
    expect((await ok('webhook', 'replay', org, 'test', '--from', '2000-01-01', '--to', '2000-12-31')).queued).toBe(0);
    const at = events[0]!.created_at.toISOString();
    expect((await ok('webhook', 'replay', org, 'test', '--from', at, '--to', at)).queued).toBe(2);
  });
});

describe('webhook: refused input', () => {
  it.each([
    ['webhook', 'set', UNKNOWN_ORG, 'test', '--url', SANDBOX_URL],
    ['webhook', 'list', UNKNOWN_ORG],
    ['webhook', 'list', 'not-a-uuid'],
    ['webhook', 'rotate-secret', UNKNOWN_ORG, 'test'],
    ['webhook', 'deliveries', UNKNOWN_ORG],
    ['webhook', 'replay', UNKNOWN_ORG, 'test', '--from', '2020-01-01', '--to', '2020-01-02'],
  ])('an unknown organization exits 1 with resource_not_found naming id: %s %s', async (...argv) => {
    const run = await cli(argv);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'resource_not_found', message: expect.any(String), param: 'id' } });
  });

  it.each([
    [['set', '@org', 'prod', '--url', SANDBOX_URL], ['PUT', '/webhooks/prod', { url: SANDBOX_URL }]],
    [['rotate-secret', '@org', 'prod'], ['POST', '/webhooks/prod/rotate-secret', {}]],
    [['replay', '@org', 'prod', '--from', '2020-01-01', '--to', '2020-01-02'], ['POST', '/webhooks/prod/replay', { from: '2020-01-01', to: '2020-01-02' }]],
  ] as [string[], [string, string, unknown]][])(
    'a mode other than test or live is a usage error (exit 2, the allowed modes named), as the API refuses it naming mode: webhook %j',
    async (argv, [method, path, body]) => {
      const org = await newOrg();
      const run = await cli(['webhook', ...argv.map((arg) => (arg === '@org' ? org : arg))]);
      expect(run).toMatchObject({ code: 2, stdout: '' });
      expect(run.stderr).toContain('Allowed choices are test, live');
      const answer = await t.admin(method as 'PUT', `/organizations/${org}${path}`, body);
      expect(answer.json().error).toMatchObject({ code: 'invalid_request', param: 'mode' });
    },
  );

  // Values the API's rules refuse exit 1 with the API's code and param (checked against the API itself);
  // malformed flags are usage errors (exit 2, commander's message). @org has a sandbox endpoint, no live one.
  it.each([
    {
      rule: 'live endpoints must use https',
      argv: ['webhook', 'set', '@org', 'live', '--url', 'http://93.184.216.34/hooks'],
      api: ['PUT', '/webhooks/live', { url: 'http://93.184.216.34/hooks' }],
      exit: 1,
      code: 'invalid_request',
      param: 'url',
      says: 'live endpoints must use https',
    },
    {
      rule: 'a live endpoint must not be a loopback address',
      argv: ['webhook', 'set', '@org', 'live', '--url', 'https://127.0.0.1/hooks'],
      api: ['PUT', '/webhooks/live', { url: 'https://127.0.0.1/hooks' }],
      exit: 1,
      code: 'invalid_request',
      param: 'url',
      says: 'loopback',
    },
    {
      rule: 'a live endpoint must not be the metadata address',
      argv: ['webhook', 'set', '@org', 'live', '--url', 'https://169.254.169.254/latest'],
      api: ['PUT', '/webhooks/live', { url: 'https://169.254.169.254/latest' }],
      exit: 1,
      code: 'invalid_request',
      param: 'url',
      says: 'link-local',
    },
    {
      rule: 'a live endpoint must not be localhost',
      argv: ['webhook', 'set', '@org', 'live', '--url', 'https://localhost/hooks'],
      api: ['PUT', '/webhooks/live', { url: 'https://localhost/hooks' }],
      exit: 1,
      code: 'invalid_request',
      param: 'url',
      says: 'local name',
    },
    {
      rule: 'a URL is at most 2048 characters',
      argv: ['webhook', 'set', '@org', 'test', '--url', `http://localhost/${'a'.repeat(2048)}`],
      api: ['PUT', '/webhooks/test', { url: `http://localhost/${'a'.repeat(2048)}` }],
      exit: 1,
      code: 'invalid_request',
      param: 'url',
      says: '--url must not have more than 2048 characters',
    },
    {
      rule: 'rotating a mode without an endpoint is not found',
      argv: ['webhook', 'rotate-secret', '@org', 'live'],
      api: ['POST', '/webhooks/live/rotate-secret', {}],
      exit: 1,
      code: 'resource_not_found',
      param: 'mode',
      says: 'webhook endpoint',
    },
    {
      rule: 'the rotation grace is at most 7 days',
      argv: ['webhook', 'rotate-secret', '@org', 'test', '--previous-secret-valid-seconds', '604801'],
      api: ['POST', '/webhooks/test/rotate-secret', { previous_secret_valid_seconds: 604_801 }],
      exit: 1,
      code: 'invalid_request',
      param: 'previous_secret_valid_seconds',
      says: '0 to 604800',
    },
    {
      rule: 'the rotation grace is not negative',
      argv: ['webhook', 'rotate-secret', '@org', 'test', '--previous-secret-valid-seconds', '-1'],
      api: ['POST', '/webhooks/test/rotate-secret', { previous_secret_valid_seconds: -1 }],
      exit: 1,
      code: 'invalid_request',
      param: 'previous_secret_valid_seconds',
      says: '0 to 604800',
    },
    {
      rule: 'a replay bound must be an ISO 8601 date',
      argv: ['webhook', 'replay', '@org', 'test', '--from', 'yesterday', '--to', '2030-01-01'],
      api: ['POST', '/webhooks/test/replay', { from: 'yesterday', to: '2030-01-01' }],
      exit: 1,
      code: 'invalid_request',
      param: 'from',
      says: 'from must be an ISO 8601 date',
    },
    {
      rule: 'a replay range must not end before it starts',
      argv: ['webhook', 'replay', '@org', 'test', '--from', '2030-01-02', '--to', '2030-01-01'],
      api: ['POST', '/webhooks/test/replay', { from: '2030-01-02', to: '2030-01-01' }],
      exit: 1,
      code: 'invalid_request',
      param: 'from',
      says: 'from must not be after to',
    },
    {
      rule: 'a replay needs an enabled endpoint for the mode',
      argv: ['webhook', 'replay', '@org', 'live', '--from', '2020-01-01', '--to', '2030-01-01'],
      api: ['POST', '/webhooks/live/replay', { from: '2020-01-01', to: '2030-01-01' }],
      exit: 1,
      code: 'webhook_endpoint_not_configured',
      param: null,
      says: 'No enabled webhook endpoint for live events',
    },
    {
      rule: 'a deliveries cursor must be one the list printed',
      argv: ['webhook', 'deliveries', '@org', '--cursor', 'forged'],
      api: ['GET', '/webhook-deliveries?cursor=forged'],
      exit: 1,
      code: 'invalid_request',
      param: 'cursor',
      says: 'The cursor is not one this list issued',
    },
    { rule: '--url is required', argv: ['webhook', 'set', '@org', 'test'], exit: 2, says: "required option '--url <url>' not specified" },
    {
      rule: 'the rotation grace must be an integer',
      argv: ['webhook', 'rotate-secret', '@org', 'test', '--previous-secret-valid-seconds', '1.5'],
      exit: 2,
      says: 'Expected an integer',
    },
    {
      rule: 'a deliveries status must be a delivery state',
      argv: ['webhook', 'deliveries', '@org', '--status', 'queued'],
      exit: 2,
      says: 'Allowed choices are pending, delivered, failed, dead',
    },
    { rule: 'a deliveries mode must be test or live', argv: ['webhook', 'deliveries', '@org', '--mode', 'prod'], exit: 2, says: 'Allowed choices are test, live' },
    { rule: 'a deliveries page size must be a positive integer', argv: ['webhook', 'deliveries', '@org', '--limit', '0'], exit: 2, says: 'limit must be an integer from 1 to 200' },
    {
      rule: 'a replay state must be dead, delivered or none',
      argv: ['webhook', 'replay', '@org', 'test', '--from', '2020-01-01', '--to', '2020-01-02', '--state', 'pending'],
      exit: 2,
      says: 'Allowed choices are dead, delivered, none',
    },
    { rule: 'a replay needs --to', argv: ['webhook', 'replay', '@org', 'test', '--from', '2020-01-01'], exit: 2, says: "required option '--to <date-time>' not specified" },
    { rule: 'an unknown webhook verb is a usage error', argv: ['webhook', 'delete', '@org', 'test'], exit: 2, says: "unknown command 'delete'" },
  ] as { rule: string; argv: string[]; api?: [string, string, unknown?]; exit: number; code?: string; param?: string | null; says: string }[])(
    '$rule',
    async ({ argv, api, exit, code, param, says }) => {
      const org = await newOrg();
      await putEndpoint(t, org, 'test');
      const run = await cli(argv.map((arg) => (arg === '@org' ? org : arg)));
      expect(run).toMatchObject({ code: exit, stdout: '' });
      if (code === undefined) {
        expect(run.stderr).toContain(says);
        return;
      }
      const error = JSON.parse(run.stderr).error;
      expect(error).toEqual({ code, param, message: expect.stringContaining(says) });
      const [method, path, body] = api!;
      const answer = await t.admin(method as 'GET', `/organizations/${org}${path}`, body);
      expect(answer.json().error, answer.body).toMatchObject({ code, param });
    },
  );
});
