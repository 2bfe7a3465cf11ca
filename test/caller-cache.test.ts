import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../src/store/postgres.js';
import { startTestApp, withManualClock, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import { createTenant, errorOf } from './support/partner.js';
import { eventually } from './support/webhooks.js';

/**
 * The key cache (src/http/caller-cache.ts): authenticated requests skip the key lookup, yet the contract's
 * "rotating a key invalidates the previous one immediately" holds on every instance.
 */
let a: TestApp;
beforeAll(async () => {
  a = await startTestApp();
});
afterAll(() => a.close());

const health = (t: TestApp, key: string) => t.call(key, 'GET', '/health');

describe('one instance', () => {
  it('a key seen once is answered from the cache: no key lookup on the next request', async () => {
    const tenant = await createTenant(a);
    expect((await health(a, tenant.key)).statusCode).toBe(200);
    // Remove the key's row behind the cache's back (no trigger fires for a DELETE): a lookup would now fail.
    await a.db.query('ALTER TABLE api_keys DISABLE TRIGGER USER');
    try {
      await a.db.query("UPDATE api_keys SET key_hash = 'moved-' || key_hash WHERE id = $1", [tenant.keyId]);
      expect((await health(a, tenant.key)).statusCode).toBe(200);
    } finally {
      await a.db.query("UPDATE api_keys SET key_hash = substr(key_hash, 7) WHERE id = $1 AND key_hash LIKE 'moved-%'", [tenant.keyId]);
      await a.db.query('ALTER TABLE api_keys ENABLE TRIGGER USER');
    }
  });

  it('the instance that rotates a key refuses the old one on the very next request', async () => {
    const tenant = await createTenant(a);
    expect((await health(a, tenant.key)).statusCode).toBe(200);
    const rotated = await a.admin('POST', `/keys/${tenant.keyId}/rotate`);
    expect(rotated.statusCode).toBe(201);
    const res = await health(a, tenant.key);
    expect(res.statusCode).toBe(401);
    expect(errorOf(res).code).toBe('authentication_required');
    expect((await health(a, rotated.json().key)).statusCode).toBe(200);
  });

  it('revoking a key and suspending an organization take effect on the next request', async () => {
    const revoked = await createTenant(a);
    const suspended = await createTenant(a);
    const route = '/payment-intents';
    expect((await a.call(suspended.key, 'GET', route)).statusCode).toBe(200);
    expect((await health(a, revoked.key)).statusCode).toBe(200);

    expect((await a.admin('DELETE', `/keys/${revoked.keyId}`)).statusCode).toBe(200);
    expect((await a.admin('PATCH', `/organizations/${suspended.organizationId}`, { status: 'suspended' })).statusCode).toBe(200);
    expect((await health(a, revoked.key)).statusCode).toBe(401);
    const res = await a.call(suspended.key, 'GET', route);
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe('account_pending_approval');
  });

  it('a change made straight in the database (CLI, SQL) is heard through the trigger', async () => {
    const tenant = await createTenant(a);
    expect((await health(a, tenant.key)).statusCode).toBe(200);
    await a.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [tenant.keyId]);
    await eventually(
      async () => (await health(a, tenant.key)).statusCode,
      (status) => status === 401,
      2000,
    );
  });

  it("a cached key's expiry is checked on every request", async () => {
    const org = await a.ctx.operator.createOrganization({ name: 'Expiring', status: 'active' });
    const key = await a.ctx.operator.createApiKey(org.id, { mode: 'test', expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await withManualClock(a, async (clocked, clock) => {
      expect((await health(clocked, key.key)).statusCode).toBe(200);
      // Nothing changes in the database: only the cached row's expires_at, read against the clock, can refuse it.
      clock.advance(2 * 3_600_000);
      const res = await health(clocked, key.key);
      expect(res.statusCode).toBe(401);
      expect(errorOf(res).code).toBe('expired_credential');
    });
  });
});

describe.runIf(onPostgres)('two instances on one PostgreSQL', () => {
  let b: TestApp;
  beforeAll(async () => {
    b = await startTestApp({}, { ...a.testDb, db: a.testDb.openSibling() });
  });
  afterAll(() => b.close());

  it('a key rotated through one instance is refused by the other within moments', async () => {
    const tenant = await createTenant(a);
    expect((await health(b, tenant.key)).statusCode).toBe(200);
    expect((await a.admin('POST', `/keys/${tenant.keyId}/rotate`)).statusCode).toBe(201);
    await eventually(
      async () => (await health(b, tenant.key)).statusCode,
      (status) => status === 401,
      2000,
    );
  });

  it('an instance whose listening connection is lost stops trusting its cache until it listens again', async () => {
    const url = process.env.TEST_DATABASE_URL!;
    const [row] = await a.db.query<{ schema: string }>('SELECT current_schema() AS schema');
    // A third instance with a slow reconnect, so that the window without a listener is wide enough to use.
    const db = openPostgres({ connectionString: url, schema: row!.schema, relistenDelayMs: 3000 });
    const c = await startTestApp({}, { ...a.testDb, db });
    try {
      const tenant = await createTenant(a);
      expect((await health(c, tenant.key)).statusCode).toBe(200);
      // c is the newest instance on this schema: its listener is the newest one named after the schema.
      const [listener] = await c.db.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN "connect_credentials"%'
         ORDER BY backend_start DESC LIMIT 1`,
        [`connect-payments listener (${row!.schema})`],
      );
      await a.db.query('SELECT pg_terminate_backend($1)', [listener!.pid]);
      await eventually(
        async () => c.ctx.callers.trusted,
        (trusted) => !trusted,
        2000,
      );
      // Rotated while c cannot hear it: c must ask the database, and refuse the old key.
      expect((await a.admin('POST', `/keys/${tenant.keyId}/rotate`)).statusCode).toBe(201);
      expect((await health(c, tenant.key)).statusCode).toBe(401);
      expect(c.ctx.callers.trusted).toBe(false);
      await eventually(
        async () => c.ctx.callers.trusted,
        (trusted) => trusted,
        10_000,
      );
    } finally {
      await c.close();
      await db.close();
    }
  });
});

