import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { openTestDatabase } from './support/database.js';
import { createIntent, createTenant, json, simulate } from './support/partner.js';
import { SANDBOX_URL } from './support/webhook-admin.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

/**
 * The tables, among every base table of the service's schema (on PostgreSQL each test file has its own), that
 * hold `secret` anywhere in a column: each row is cast to text whole (every column, JSON and arrays included),
 * as a reader of a replica or a backup would see it.
 */
async function tablesHolding(sql: Sql, secret: string): Promise<string[]> {
  const tables = await sql.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema = current_schema()`,
  );
  expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['idempotency_records', 'refund_address_requests', 'api_keys']));
  const holding: string[] = [];
  for (const { schema, name } of tables) {
    const table = `"${schema}"."${name}"`;
    const [found] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} AS r WHERE strpos(r::text, $1) > 0`, [secret]);
    if (found!.n > 0) holding.push(name);
  }
  return holding;
}

const refundLinkPath = (intentId: string) => `/payment-intents/${intentId}/refund-address-requests`;

async function paidIntentId(): Promise<string> {
  const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
  await simulate(t, tenant.key, intent.id, { amount: '2', currency: 'USDC', network: 'ethereum' });
  return intent.id;
}

describe('bearer secrets are never stored readable', () => {
  it('a refund link: its token is in no table, the idempotency record of the answer that showed it included', async () => {
    const res = await t.call(tenant.key, 'POST', refundLinkPath(await paidIntentId()), { body: {}, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    const url = json<{ url: string }>(res).url;
    const token = new URL(url).pathname.split('/').pop()!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tablesHolding(t.db, token)).toEqual([]);
    expect(await tablesHolding(t.db, url)).toEqual([]);
    // The link opens: the token is right, only never kept.
    expect((await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(200);
  });

  it('API keys created and rotated through the operator API: in no table (only their hash is)', async () => {
    const created = await t.admin('POST', `/organizations/${tenant.organizationId}/keys`, { mode: 'test' });
    expect(created.statusCode, created.body).toBe(201);
    const { id, key } = json<{ id: string; key: string }>(created);
    const rotated = await t.admin('POST', `/keys/${id}/rotate`);
    expect(rotated.statusCode, rotated.body).toBe(201);
    for (const secret of [key, json<{ key: string }>(rotated).key]) {
      expect(secret).toMatch(/^sk_test_/);
      expect(await tablesHolding(t.db, secret)).toEqual([]);
    }
  });

  it('a webhook signing secret, created and rotated, is only where deliveries are signed from (the endpoint row)', async () => {
    const created = await t.admin('PUT', `/organizations/${tenant.organizationId}/webhooks/test`, { url: SANDBOX_URL });
    expect(created.statusCode, created.body).toBe(201);
    const rotated = await t.admin('POST', `/organizations/${tenant.organizationId}/webhooks/test/rotate-secret`, {});
    expect(rotated.statusCode, rotated.body).toBe(200);
    for (const secret of [json<{ secret: string }>(created).secret, json<{ secret: string }>(rotated).secret]) {
      expect(secret).toMatch(/^whsec_/);
      expect(await tablesHolding(t.db, secret)).toEqual(['webhook_endpoints']);
    }
  });
});

describe('replays', () => {
  it('a replay of an answer that showed no secret carries no withheld marker and is byte for byte the original', async () => {
    const key = randomUUID();
    const body = { amount: '5', currencies: ['USDC'] };
    const first = await t.call(tenant.key, 'POST', '/payment-intents', { body, idempotencyKey: key });
    const again = await t.call(tenant.key, 'POST', '/payment-intents', { body, idempotencyKey: key });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['idempotent-replay-withheld']).toBeUndefined();
    expect(again.body).toBe(first.body);
  });
});

describe('migration 032: answers stored before it', () => {
  it("withholds the link of every stored answer that showed one (url null, withheld {url}); other answers keep every byte", async () => {
    const fresh = await openTestDatabase({ migrated: false });
    try {
      const db = fresh.db;
      const dir = new URL('../src/store/migrations/', import.meta.url);
      await db.query('CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.sql') && f < '032').sort()) {
        await db.exec(fs.readFileSync(new URL(file, dir), 'utf8'));
        await db.query('INSERT INTO schema_migrations (id) VALUES ($1)', [file]);
      }
      const org = randomUUID();
      await db.query(`INSERT INTO organizations (id, name, status, settings) VALUES ($1, 'Old', 'active', '{"intent_ttl_seconds":3600,"disabled_pairs":[]}')`, [org]);
      const token = 'ZTWHPq1H5dKX9dfZQRmWzon70dGnlYrzyjzEJ5FBFnY';
      const link = (url: string) =>
        `{"id":"06fa96bb-0000-4000-8000-000000000000","object":"refund_address_request","payment_intent_id":"d41d5fc3-0000-4000-8000-000000000000",` +
        `"url":${url},"status":"open","networks":[{"asset":"USDC","network":"solana"}],"asset":null}`;
      const intent = '{"id":"d41d5fc3-0000-4000-8000-000000000000","object":"payment_intent","url":"https://pay.example.com/pay/ABCDE"}';
      const records = { created: link(`"https://pay.example.com/pay/refund/${token}"`), cancelled: link('null'), intent };
      for (const [key, body] of Object.entries(records)) {
        await db.query(
          `INSERT INTO idempotency_records (organization_id, mode, idempotency_key, request_hash, response_status, response_body, expires_at)
           VALUES ($1, 'test', $2, 'h', 201, $3, now() + interval '1 day')`,
          [org, key, body],
        );
      }

      expect(await migrate(db)).toContain('032_idempotency_withheld_secrets.sql');
      const rows = await db.query<{ idempotency_key: string; response_body: string; withheld: string[] }>(
        'SELECT idempotency_key, response_body, withheld FROM idempotency_records ORDER BY idempotency_key',
      );
      expect(rows).toEqual([
        { idempotency_key: 'cancelled', response_body: records.cancelled, withheld: [] },
        { idempotency_key: 'created', response_body: link('null'), withheld: ['url'] },
        { idempotency_key: 'intent', response_body: intent, withheld: [] },
      ]);
      expect(await tablesHolding(db, token)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
