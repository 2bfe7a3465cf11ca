import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../src/domain/catalog.js';
import { systemClock } from '../src/domain/clock.js';
import { worldAccountId } from '../src/domain/ledger.js';
import { Decimal } from '../src/domain/money.js';
import type { Database } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';
import { openPostgres } from '../src/store/postgres.js';
import { tenantHoldings } from '../src/store/tenant-totals.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import { OperatorService } from '../src/use-cases/operator.js';
import { startTestApp } from './support/app.js';
import { onPostgres, openTestDatabase } from './support/database.js';
import { accountsOf, createAddress, extraKey, json, simulateAddress } from './support/partner.js';
import { EVM_DESTINATION, executePayout, quotePayout, simulatePayout, type PayoutObject } from './support/payouts.js';

/** Two "instances" (pools) on one fresh schema, as when several servers start at once. */
async function withFreshSchema(work: (a: ReturnType<typeof openPostgres>, b: ReturnType<typeof openPostgres>) => Promise<void>) {
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `start_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const a = openPostgres({ connectionString: url, schema });
  const b = openPostgres({ connectionString: url, schema });
  try {
    await work(a, b);
  } finally {
    await a.close();
    await b.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

describe.runIf(onPostgres)('several instances starting at once', () => {
  it('migrations apply once, whichever instance gets the advisory lock first', async () => {
    await withFreshSchema(async (a, b) => {
      const [first, second] = await Promise.all([migrate(a), migrate(b)]);
      const applied = [...first, ...second].sort();
      const files = fs.readdirSync(new URL('../src/store/migrations/', import.meta.url)).filter((f) => f.endsWith('.sql')).sort();
      expect(applied).toEqual(files);
      expect(await migrate(a)).toEqual([]);
    });
  });

  it('an empty database gets exactly one demo organization', async () => {
    await withFreshSchema(async (a, b) => {
      await migrate(a);
      const catalog = Catalog.load();
      const results = await Promise.all([new OperatorService(a, catalog, systemClock).bootstrapDemo(), new OperatorService(b, catalog, systemClock).bootstrapDemo()]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      const [{ n }] = (await a.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations')) as [{ n: number }];
      expect(n).toBe(1);
    });
  });
});

const migrationsDir = new URL('../src/store/migrations/', import.meta.url);
const migrationFiles = (keep: (file: string) => boolean) => fs.readdirSync(migrationsDir).filter((f) => f.endsWith('.sql') && keep(f)).sort();

/**
 * The schema before 004 (a one-sided ledger: balances and their entries) on a fresh database, with one
 * organization's rows: a treasury holding 7.5 USDC on solana from two deposits, and the end user `old-user`
 * holding 0.25 ETH on base from one.
 */
async function previousVersion(db: Database): Promise<{ org: string; profile: string }> {
  await db.query('CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const file of migrationFiles((f) => f < '004')) {
    await db.exec(fs.readFileSync(new URL(file, migrationsDir), 'utf8'));
    await db.query('INSERT INTO schema_migrations (id) VALUES ($1)', [file]);
  }
  const org = randomUUID();
  const profile = randomUUID();
  const treasury = randomUUID();
  const user = randomUUID();
  await db.query(`INSERT INTO organizations (id, name, status, settings) VALUES ($1, 'Old', 'active', '{"intent_ttl_seconds":3600,"disabled_pairs":[]}')`, [org]);
  await db.query(`INSERT INTO profiles (id, organization_id, mode, external_ref) VALUES ($1, $2, 'test', 'old-user')`, [profile, org]);
  await db.query(
    `INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance) VALUES
     ($1, $3, 'test', NULL, 'USDC', 'solana', 7.5), ($2, $3, 'test', $4, 'ETH', 'base', 0.25)`,
    [treasury, user, org, profile],
  );
  const deposits = [
    [treasury, null, 'USDC', 'solana', '5', 'hash-1'],
    [treasury, null, 'USDC', 'solana', '2.5', 'hash-2'],
    [user, profile, 'ETH', 'base', '0.25', 'hash-3'],
  ] as const;
  for (const [account, profileId, asset, network, amount, hash] of deposits) {
    const id = randomUUID();
    await db.query(
      `INSERT INTO transactions (id, organization_id, mode, profile_id, external_ref, type, status, asset, network, amount, tx_hash, output_index, completed_at)
       VALUES ($1, $2, 'test', $3, $4, 'deposit', 'confirmed', $5, $6, $7, $8, 0, now())`,
      [id, org, profileId, profileId ? 'old-user' : null, asset, network, amount, hash],
    );
    await db.query('INSERT INTO ledger_entries (account_id, transaction_id, amount) VALUES ($1, $2, $3)', [account, id, amount]);
  }
  return { org, profile };
}

describe('migration from the one-sided ledger (before 004)', () => {
  it('carries every balance and deposit of the previous version into transfers that verify, with the world accounts under the ids the code derives', async () => {
    const fresh = await openTestDatabase({ migrated: false });
    try {
      const db = fresh.db;
      const { org, profile } = await previousVersion(db);
      expect(await migrate(db)).toEqual(migrationFiles((f) => f >= '004'));

      const balances = await db.query<{ profile_id: string | null; asset: string; kind: string; balance: string }>(
        `SELECT profile_id, asset, kind, sum(balance)::text AS balance FROM ledger_accounts WHERE organization_id = $1
         GROUP BY profile_id, asset, kind ORDER BY kind, asset`,
        [org],
      );
      expect(balances).toEqual([
        { profile_id: profile, asset: 'ETH', kind: 'available', balance: '0.25' },
        { profile_id: null, asset: 'USDC', kind: 'available', balance: '7.5' },
        { profile_id: null, asset: 'ETH', kind: 'world', balance: '0' },
        { profile_id: null, asset: 'USDC', kind: 'world', balance: '0' },
      ]);
      const worlds = await db.query<{ id: string; asset: string }>("SELECT id, asset FROM ledger_accounts WHERE kind = 'world' ORDER BY asset");
      expect(worlds).toEqual([
        { id: worldAccountId(org, 'test', 'ETH', 'base'), asset: 'ETH' },
        { id: worldAccountId(org, 'test', 'USDC', 'solana'), asset: 'USDC' },
      ]);
      const causes = await db.query<{ cause: string; postings: number }>(
        `SELECT tr.cause, count(p.id)::int AS postings FROM ledger_transfers tr JOIN ledger_postings p ON p.transfer_id = tr.id
         WHERE tr.organization_id = $1 GROUP BY tr.cause ORDER BY tr.cause`,
        [org],
      );
      expect(causes).toEqual([
        { cause: 'deposit:base:hash-3:0', postings: 2 },
        { cause: 'deposit:solana:hash-1:0', postings: 2 },
        { cause: 'deposit:solana:hash-2:0', postings: 2 },
      ]);
      const report = await verifyLedger(db);
      expect(report).toMatchObject({ ok: true, transfers: 3, postings: 6 });
      const [table] = await db.query<{ name: string | null }>("SELECT to_regclass('ledger_entries')::text AS name");
      expect(table!.name).toBeNull();
    } finally {
      await fresh.close();
    }
  });

  it('a carried-over tenant keeps working: new deposits are credited, and payouts of its treasury and of its end user complete and fail, the ledger verifying', async () => {
    const fresh = await openTestDatabase({ migrated: false });
    try {
      const { org } = await previousVersion(fresh.db);
      await migrate(fresh.db);
      const t = await startTestApp({}, fresh);
      try {
        const key = await extraKey(t, org, 'test');
        const usdc = await createAddress(t, key, { asset: 'USDC', network: 'solana' });
        await simulateAddress(t, key, usdc.id, '5');
        const eth = await createAddress(t, key, { asset: 'ETH', network: 'base', external_ref: 'old-user' });
        await simulateAddress(t, key, eth.id, '0.5');
        const held = { USDC: new Decimal('12.5'), ETH: new Decimal('0.75') };

        const fromUser = { destination: EVM_DESTINATION, network_hint: 'base', external_ref: 'old-user' };
        const payouts = [
          { asset: 'USDC', body: { amount: '2' }, outcome: 'completed' },
          { asset: 'USDC', body: { amount: '3' }, outcome: 'failed' },
          { asset: 'ETH', body: { ...fromUser, amount: '0.1' }, outcome: 'completed' },
          { asset: 'ETH', body: { ...fromUser, amount: '0.2' }, outcome: 'failed' },
        ] as const;
        for (const { asset, body, outcome } of payouts) {
          const quote = await quotePayout(t, key, { asset, ...body });
          const executed = await executePayout(t, key, quote.quote_id);
          expect(executed.statusCode, executed.body).toBe(201);
          const settled = await simulatePayout(t, key, json<PayoutObject>(executed).id, outcome);
          expect(settled.statusCode, settled.body).toBe(200);
          expect(json<PayoutObject>(settled).status).toBe(outcome);
          if (outcome === 'completed') held[asset] = held[asset].minus(quote.user_sends);
        }

        expect((await accountsOf(t, org)).map((a) => [a.asset, a.balance])).toEqual([
          ['USDC', held.USDC.toFixed()],
          ['ETH', held.ETH.toFixed()],
        ]);
        expect(await fresh.db.query("SELECT count(*)::int AS n FROM ledger_accounts WHERE organization_id = $1 AND kind = 'world'", [org])).toEqual([{ n: 2 }]);
        expect(await verifyLedger(fresh.db)).toMatchObject({ ok: true });
      } finally {
        await t.close();
      }
    } finally {
      await fresh.close();
    }
  });
});

describe('migration 027: the tenant-wide totals start from what the accounts already hold', () => {
  it('backfills every tenant and mode: available and reserved over shards and profiles, fees and world left out, profiles counted', async () => {
    const fresh = await openTestDatabase({ migrated: false });
    try {
      const db = fresh.db;
      await db.query('CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const file of migrationFiles((f) => f < '027')) {
        await db.exec(fs.readFileSync(new URL(file, migrationsDir), 'utf8'));
        await db.query('INSERT INTO schema_migrations (id) VALUES ($1)', [file]);
      }
      const [org, other] = [randomUUID(), randomUUID()];
      const [alice, bob, livePerson] = [randomUUID(), randomUUID(), randomUUID()];
      await db.query(
        `INSERT INTO organizations (id, name, status, settings) VALUES ($1, 'Held', 'active', '{"intent_ttl_seconds":3600,"disabled_pairs":[]}'),
           ($2, 'Other', 'active', '{"intent_ttl_seconds":3600,"disabled_pairs":[]}')`,
        [org, other],
      );
      await db.query(
        `INSERT INTO profiles (id, organization_id, mode, external_ref) VALUES ($1, $4, 'test', 'alice'), ($2, $4, 'test', 'bob'), ($3, $4, 'live', 'alice')`,
        [alice, bob, livePerson, org],
      );
      const accounts: [string, string, string | null, string, string, string, string, number][] = [
        [org, 'test', null, 'USDC', 'solana', '10', 'available', 0],
        [org, 'test', null, 'USDC', 'solana', '2.5', 'available', 3],
        [org, 'test', null, 'USDC', 'solana', '0.5', 'fees', 0],
        [org, 'test', null, 'USDC', 'solana', '0', 'world', 0],
        [org, 'test', alice, 'USDC', 'solana', '1.25', 'available', 0],
        [org, 'test', alice, 'USDC', 'solana', '4', 'reserved', 0],
        [org, 'test', bob, 'ETH', 'base', '0.001', 'available', 0],
        [org, 'test', bob, 'USDT', 'tron', '0', 'available', 0],
        [org, 'live', livePerson, 'USDC', 'solana', '40', 'available', 0],
        [other, 'test', null, 'USDC', 'solana', '99', 'available', 0],
      ];
      for (const [owner, mode, profile, asset, network, balance, kind, shard] of accounts) {
        await db.query(
          `INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [randomUUID(), owner, mode, profile, asset, network, balance, kind, shard],
        );
      }

      expect((await migrate(db))[0]).toBe('027_tenant_totals.sql');
      expect(await tenantHoldings(db, { organizationId: org, mode: 'test' })).toEqual({
        holdings: [
          { asset: 'ETH', network: 'base', available: '0.001', reserved: '0' },
          { asset: 'USDC', network: 'solana', available: '13.75', reserved: '4' },
        ],
        profilesCount: 2,
      });
      expect(await tenantHoldings(db, { organizationId: org, mode: 'live' })).toEqual({
        holdings: [{ asset: 'USDC', network: 'solana', available: '40', reserved: '0' }],
        profilesCount: 1,
      });
      expect(await tenantHoldings(db, { organizationId: other, mode: 'test' })).toEqual({
        holdings: [{ asset: 'USDC', network: 'solana', available: '99', reserved: '0' }],
        profilesCount: 0,
      });
      // Nothing was appended by the backfill itself: the totals are all in tenant_totals.
      expect(await db.query('SELECT count(*)::int AS n FROM tenant_total_deltas')).toEqual([{ n: 0 }]);
      expect((await verifyLedger(db)).tenantTotalMismatches).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
