import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/context.js';
import { SCOPES } from '../src/domain/scopes.js';
import { runCli, type OpenDatabase } from '../src/cli/run.js';
import { buildApp } from '../src/http/app.js';
import { startTestApp, workerSerializers, type TestApp } from './support/app.js';
import { migratedDataDir } from './support/database.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The test database, kept open for the next run: runCli closes what it is given. */
const testDatabase: OpenDatabase = async () => ({ ...t.db, close: async () => {} });

/** A data directory no server runs on: verbs run on the test database, in this process. */
const NO_SERVER = { CONNECT_DATA_DIR: path.join(os.tmpdir(), 'cli-test-no-server-here') };

/** One in-process run, with what it printed. */
async function cli(argv: string[], open = testDatabase) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const code = await runCli(argv, io, open, NO_SERVER);
  return { code, stdout, stderr };
}

/** Runs a verb that must succeed and returns what it printed. */
async function ok(...argv: string[]) {
  const run = await cli(argv);
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

const newOrg = () => ok('org', 'create', '--name', 'Acme', '--status', 'active');
const newKey = async () => ok('key', 'create', (await newOrg()).id, '--mode', 'test');

describe('operator CLI: organizations', () => {
  it('org create prints the organization exactly as the admin API presents it', async () => {
    const org = await ok('org', 'create', '--name', 'Acme');
    expect(org).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'organization',
      name: 'Acme',
      status: 'pending_verification',
      settings: { intent_ttl_seconds: 3600, disabled_pairs: [] },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect((await t.admin('GET', `/organizations/${org.id}`)).json()).toEqual(org);
  });

  it('org create accepts an explicit status', async () => {
    expect((await newOrg()).status).toBe('active');
  });

  it('org get prints the organization', async () => {
    const org = await newOrg();
    expect(await ok('org', 'get', org.id)).toEqual(org);
  });

  it('org update changes name, status and settings, keeping what is not given', async () => {
    const org = await newOrg();
    const updated = await ok(
      'org', 'update', org.id,
      '--status', 'suspended',
      '--intent-ttl-seconds', '900',
      '--disable-pair', 'USDT:tron',
      '--disable-pair', 'USDC:ethereum',
    );
    expect(updated).toEqual({
      ...org,
      status: 'suspended',
      settings: { intent_ttl_seconds: 900, disabled_pairs: [{ asset: 'USDT', network: 'tron' }, { asset: 'USDC', network: 'ethereum' }] },
    });
    expect(await ok('org', 'update', org.id, '--name', 'Acme 2')).toEqual({ ...updated, name: 'Acme 2' });
  });

  it('org update --disable-pair replaces the list, --clear-disabled-pairs empties it', async () => {
    const org = await newOrg();
    await ok('org', 'update', org.id, '--disable-pair', 'USDT:tron', 'USDC:ethereum');
    const replaced = await ok('org', 'update', org.id, '--disable-pair', 'BTC:bitcoin');
    expect(replaced.settings.disabled_pairs).toEqual([{ asset: 'BTC', network: 'bitcoin' }]);
    expect((await ok('org', 'update', org.id, '--clear-disabled-pairs')).settings).toEqual({ intent_ttl_seconds: 3600, disabled_pairs: [] });
  });

  it('org list pages newest first, resuming from the cursor it printed', async () => {
    const created = [await newOrg(), await newOrg(), await newOrg()];
    const first = await ok('org', 'list', '--limit', '2');
    expect(first).toMatchObject({ has_more: true, data: [created[2], created[1]], cursor: expect.any(String) });
    const second = await ok('org', 'list', '--limit', '1', '--cursor', first.cursor);
    expect(second.data).toEqual([created[0]]);
  });
});

describe('operator CLI: API keys', () => {
  it('key create applies mode, scopes, rate limit and expiry', async () => {
    const org = await newOrg();
    const key = await ok(
      'key', 'create', org.id,
      '--mode', 'live',
      '--scopes', 'intents:read,balances:read',
      '--rate-limit-rps', '7',
      '--expires-at', '2030-01-01T00:00:00Z',
    );
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'api_key',
      key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{40}$/),
      organization_id: org.id,
      key_prefix: key.key.slice(0, 'sk_live_'.length + 4),
      mode: 'live',
      scopes: ['intents:read', 'balances:read'],
      expires_at: '2030-01-01T00:00:00.000Z',
      rate_limit_rps: 7,
      revoked_at: null,
      created_at: expect.any(String),
    });
  });

  it('key create defaults to every scope, the mode rate limit and no expiry', async () => {
    expect(await newKey()).toMatchObject({ mode: 'test', scopes: [...SCOPES], rate_limit_rps: 25, expires_at: null });
  });

  it('key get prints exactly what the admin API answers', async () => {
    const { id } = await newKey();
    expect(await ok('key', 'get', id)).toEqual((await t.admin('GET', `/keys/${id}`)).json());
  });

  it('the secret is printed by key create and key rotate only', async () => {
    const created = await newKey();
    const rotated = await ok('key', 'rotate', created.id);
    expect([created.key, rotated.key]).toEqual([expect.stringMatching(/^sk_test_/), expect.stringMatching(/^sk_test_/)]);
    const listed = await ok('key', 'list', created.organization_id);
    const others = [await ok('key', 'get', rotated.id), await ok('key', 'revoke', rotated.id), ...listed.data];
    for (const shown of others) expect(shown).not.toHaveProperty('key');
  });

  it('key rotate issues a new key with the same settings and revokes the old one', async () => {
    const old = await ok('key', 'create', (await newOrg()).id, '--mode', 'test', '--scopes', 'events:read', '--rate-limit-rps', '3');
    const rotated = await ok('key', 'rotate', old.id);
    expect(rotated).toMatchObject({ scopes: ['events:read'], rate_limit_rps: 3, revoked_at: null });
    expect(rotated.id).not.toBe(old.id);
    expect((await ok('key', 'get', old.id)).revoked_at).toEqual(expect.any(String));
  });

  it('key revoke stamps revoked_at', async () => {
    const { id } = await newKey();
    expect(await ok('key', 'revoke', id)).toMatchObject({ id, revoked_at: expect.any(String) });
  });
});

describe('operator CLI: errors', () => {
  it.each([
    ['org', 'get', UNKNOWN_ID],
    ['org', 'update', 'not-a-uuid', '--name', 'X'],
    ['key', 'create', UNKNOWN_ID, '--mode', 'test'],
    ['key', 'revoke', UNKNOWN_ID],
  ])('an unknown id exits 1 with resource_not_found on stderr: %s %s', async (...argv) => {
    const run = await cli(argv);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'resource_not_found', message: expect.any(String), param: 'id' } });
  });

  // Malformed flags are usage errors (exit 2, commander's message); values the API's rules refuse exit 1 with its error.
  it.each([
    {
      rule: 'mode must be test or live',
      argv: ['key', 'create', '@org', '--mode', 'prod'],
      exit: 2,
      says: 'Allowed choices are test, live',
    },
    { rule: 'mode is required', argv: ['key', 'create', '@org'], exit: 2, says: "required option '--mode <mode>' not specified" },
    {
      rule: 'status must be a known status',
      argv: ['org', 'create', '--name', 'X', '--status', 'approved'],
      exit: 2,
      says: 'Allowed choices are active, pending_verification, suspended',
    },
    {
      rule: 'rate limit must be an integer',
      argv: ['key', 'create', '@org', '--mode', 'test', '--rate-limit-rps', '2.5'],
      exit: 2,
      says: 'Expected an integer',
    },
    {
      rule: 'rate limit must be positive',
      argv: ['key', 'create', '@org', '--mode', 'test', '--rate-limit-rps', '0'],
      exit: 1,
      code: 'invalid_request',
      says: '--rate-limit-rps must be >= 1',
    },
    {
      rule: 'expires-at must be an ISO 8601 date-time',
      argv: ['key', 'create', '@org', '--mode', 'test', '--expires-at', 'tomorrow'],
      exit: 1,
      code: 'invalid_request',
      says: '--expires-at must match format "date-time"',
    },
    {
      rule: 'scopes must be known scopes',
      argv: ['key', 'create', '@org', '--mode', 'test', '--scopes', 'intents:read,everything'],
      exit: 1,
      code: 'invalid_request',
      says: `--scopes must be one of: ${SCOPES.join(', ')}`,
    },
    {
      rule: 'name must be 1 to 200 characters',
      argv: ['org', 'create', '--name', 'x'.repeat(201)],
      exit: 1,
      code: 'invalid_request',
      says: '--name must not have more than 200 characters',
    },
    {
      rule: 'intent TTL must be between 1 s and 30 days',
      argv: ['org', 'update', '@org', '--intent-ttl-seconds', '2592001'],
      exit: 1,
      code: 'invalid_request',
      says: 'intent_ttl_seconds must be between 1 and 2592000',
    },
    {
      rule: 'a disabled pair must be written ASSET:network',
      argv: ['org', 'update', '@org', '--disable-pair', 'USDT'],
      exit: 2,
      says: 'Expected ASSET:network',
    },
    {
      rule: 'a disabled pair must be in the catalog',
      argv: ['org', 'update', '@org', '--disable-pair', 'USDT:bitcoin'],
      exit: 1,
      code: 'catalog_invalid',
      says: 'USDT on bitcoin is not in the catalog',
    },
    {
      rule: '--disable-pair and --clear-disabled-pairs exclude each other',
      argv: ['org', 'update', '@org', '--disable-pair', 'USDT:tron', '--clear-disabled-pairs'],
      exit: 2,
      says: 'cannot be used with',
    },
    {
      rule: 'a cursor must be one the list printed',
      argv: ['org', 'list', '--cursor', 'forged'],
      exit: 1,
      code: 'invalid_request',
      says: 'The cursor is not one this list issued',
    },
    { rule: 'a page size must be a positive integer', argv: ['org', 'list', '--limit', '0'], exit: 2, says: 'limit must be an integer from 1 to 200' },
    { rule: 'an unknown verb is a usage error', argv: ['org', 'delete', '@org'], exit: 2, says: "unknown command 'delete'" },
  ])('$rule', async ({ argv, exit, code, says }) => {
    const org = await newOrg();
    const run = await cli(argv.map((arg) => (arg === '@org' ? org.id : arg)));
    expect(run).toMatchObject({ code: exit, stdout: '' });
    if (code === undefined) expect(run.stderr).toContain(says);
    else expect(JSON.parse(run.stderr).error).toMatchObject({ code, message: expect.stringContaining(says) });
  });

  it('an embedded database in use by another process exits 1 naming that process', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-locked-'));
    fs.writeFileSync(path.join(dataDir, 'connect-payments.lock'), String(process.pid));
    const run = await cli(['org', 'list'], (config) => openDatabase({ ...config, databaseUrl: undefined, dataDir }));
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`is in use by process ${process.pid}`);
    fs.rmSync(dataDir, { recursive: true });
  });

  it('--help prints usage on stdout and exits 0', async () => {
    const run = await cli(['key', 'create', '--help']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Usage: connect-payments key create');
  });
});

/** Every object key in a printed answer, however deep. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

describe('operator CLI: output', () => {
  it('every verb prints snake_case keys, like the API', async () => {
    const org = (await newOrg()).id;
    const key = (await ok('key', 'create', org, '--mode', 'test')).id;
    const printed = [
      await ok('org', 'get', org),
      await ok('org', 'list'),
      await ok('org', 'update', org, '--intent-ttl-seconds', '900'),
      await ok('key', 'list', org),
      await ok('key', 'get', key),
      await ok('key', 'rotate', key),
      await ok('webhook', 'set', org, 'test', '--url', 'https://example.com/hooks'),
      await ok('webhook', 'list', org),
      await ok('webhook', 'rotate-secret', org, 'test'),
      await ok('webhook', 'deliveries', org),
      await ok('webhook', 'replay', org, 'test', '--from', '2020-01-01', '--to', '2030-01-01'),
      await ok('deposits', 'quarantined'),
      await ok('payouts', 'list'),
      await ok('ledger', 'verify'),
    ];
    const keys = new Set(printed.flatMap(keysOf));
    expect([...keys].filter((name) => !/^[a-z][a-z0-9_]*$/.test(name))).toEqual([]);
    expect(keys).toContain('account_mismatches');
  });
});

describe('operator CLI: the operator API it serves itself', () => {
  it('serves the operator API and the probes only: the partner API and the pages are not built for a verb', async () => {
    const adminToken = 'x'.repeat(32);
    const app = await buildApp(t.ctx, { adminToken, logger: false, operatorOnly: true, serializers: workerSerializers() });
    try {
      const headers = { authorization: `Bearer ${adminToken}` };
      expect((await app.inject({ method: 'GET', url: '/admin/v1/organizations', headers })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/connect/v1/health', headers })).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/admin/' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('operator CLI: the installed command', () => {
  it('npx connect-payments org create runs on the embedded database in CONNECT_DATA_DIR', { timeout: 60_000 }, async () => {
    const dataDir = await migratedDataDir('cli-e2e-');
    const env = { ...process.env, CONNECT_DATA_DIR: dataDir, DATABASE_URL: '' };
    const { stdout } = await promisify(execFile)('node', ['bin/connect-payments.js', 'org', 'create', '--name', 'X'], { env });
    expect(JSON.parse(stdout)).toMatchObject({ object: 'organization', name: 'X', status: 'pending_verification' });
    // The lock is released on the way out, so a server can start on this directory next.
    expect(fs.existsSync(path.join(dataDir, 'connect-payments.lock'))).toBe(false);
    fs.rmSync(dataDir, { recursive: true });
  });
});
