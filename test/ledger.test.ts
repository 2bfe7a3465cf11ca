import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { TREASURY_SHARDS } from '../src/domain/ledger.js';
import { migrate } from '../src/store/migrate.js';
import { creditFromWorld } from '../src/store/ledger.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { onPostgres, openTestDatabase } from './support/database.js';
import { accountsOf, createAddress, createIntent, createTenant, simulate, simulateAddress } from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const postingsOf = (transactionId: string) =>
  t.db.query<{ kind: string; amount: string; asset: string }>(
    `SELECT a.kind, p.amount::text AS amount, p.asset FROM ledger_postings p
     JOIN ledger_transfers tr ON tr.id = p.transfer_id JOIN ledger_accounts a ON a.id = p.account_id
     WHERE tr.transaction_id = $1 ORDER BY p.amount`,
    [transactionId],
  );

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
  const code = await runCli(argv, io, async () => ({ ...t.db, close: async () => {} }));
  return { code, stdout, stderr };
}

describe('double-entry ledger', () => {
  it('a deposit is one transfer: world -amount, the owner\'s available +amount, summing to zero', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    await simulate(t, tenant.key, intent.id, { amount: '2.5' });
    const [row] = await t.db.query<{ id: string }>('SELECT id FROM transactions WHERE payment_intent_id = $1', [intent.id]);
    expect(await postingsOf(row!.id)).toEqual([
      { kind: 'world', amount: '-2.5', asset: 'USDC' },
      { kind: 'available', amount: '2.5', asset: 'USDC' },
    ]);
    const [transfer] = await t.db.query<{ cause: string }>('SELECT cause FROM ledger_transfers WHERE transaction_id = $1', [row!.id]);
    expect(transfer!.cause).toMatch(/^deposit:solana:[1-9A-HJ-NP-Za-km-z]+:0$/);
  });

  it('the same cause never posts twice: a second transfer with it is refused and changes nothing', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'solana' });
    await simulateAddress(t, org.key, address.id, '4');
    const [deposit] = await t.db.query<{ id: string }>('SELECT id FROM transactions WHERE address_id = $1', [address.id]);
    const [{ cause }] = (await t.db.query<{ cause: string }>('SELECT cause FROM ledger_transfers WHERE transaction_id = $1', [deposit!.id])) as [
      { cause: string },
    ];
    const again = await t.db.transaction((tx) =>
      creditFromWorld(tx, { organizationId: org.organizationId, mode: 'test' }, {
        cause,
        transactionId: deposit!.id,
        profileId: null,
        asset: 'USDC',
        network: 'solana',
        amount: '4',
        createdAt: new Date(),
      }),
    );
    expect(again).toBeNull();
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '4' }]);
  });

  it(`treasury credits spread over up to ${TREASURY_SHARDS} shards whose sum is the balance, so concurrent deposits do not share one row lock`, async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'solana' });
    for (let i = 0; i < 40; i++) await simulateAddress(t, org.key, address.id, '1.01');
    const shards = await t.db.query<{ shard: number }>(
      "SELECT shard FROM ledger_accounts WHERE organization_id = $1 AND kind = 'available' AND profile_id IS NULL",
      [org.organizationId],
    );
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.every((s) => s.shard >= 0 && s.shard < TREASURY_SHARDS)).toBe(true);
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '40.4' }]);
  });

  it('a per-user account keeps one shard', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'solana', external_ref: 'one-shard' });
    for (let i = 0; i < 10; i++) await simulateAddress(t, org.key, address.id, '1');
    const shards = await t.db.query('SELECT shard FROM ledger_accounts WHERE organization_id = $1 AND profile_id IS NOT NULL', [org.organizationId]);
    expect(shards).toEqual([{ shard: 0 }]);
  });
});

describe('npx connect-payments ledger verify', () => {
  it('passes on a consistent ledger and prints what it checked', async () => {
    const run = await cli(['ledger', 'verify']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ok: true, accountMismatches: [], unbalancedTransfers: [] });
    expect(report.accounts).toBeGreaterThan(0);
    expect(report.transfers).toBeGreaterThan(0);
    expect(report.postings).toBe(report.transfers * 2);
  });

  it('catches a posting altered by hand: exit 1, naming the account and the transfer', async () => {
    const [posting] = await t.db.query<{ id: string; account_id: string; transfer_id: string }>(
      "SELECT p.id, p.account_id, p.transfer_id FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE a.kind = 'available' LIMIT 1",
    );
    await t.db.query('UPDATE ledger_postings SET amount = amount + 1 WHERE id = $1', [posting!.id]);
    try {
      const run = await cli(['ledger', 'verify']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('Ledger verification FAILED: 1 account(s)');
      expect(run.stderr).toContain('1 transfer(s) that do not balance');
      expect(run.stderr).toContain(posting!.account_id);
      expect(run.stderr).toContain(posting!.transfer_id);
    } finally {
      await t.db.query('UPDATE ledger_postings SET amount = amount - 1 WHERE id = $1', [posting!.id]);
    }
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('catches a balance altered by hand', async () => {
    const [account] = await t.db.query<{ id: string }>("SELECT id FROM ledger_accounts WHERE kind = 'available' LIMIT 1");
    await t.db.query('UPDATE ledger_accounts SET balance = balance + 0.000001 WHERE id = $1', [account!.id]);
    try {
      const report = await verifyLedger(t.db);
      expect(report.ok).toBe(false);
      expect(report.accountMismatches.map((m) => m.id)).toEqual([account!.id]);
      expect(report.unbalancedTransfers).toEqual([]);
    } finally {
      await t.db.query('UPDATE ledger_accounts SET balance = balance - 0.000001 WHERE id = $1', [account!.id]);
    }
  });
});

describe('migration from the one-sided ledger (before 004)', () => {
  it('carries every balance and deposit of the previous version into transfers that verify', async () => {
    const fresh = await openTestDatabase({ migrated: false });
    try {
      const db = fresh.db;
      const dir = new URL('../src/store/migrations/', import.meta.url);
      const previous = fs.readdirSync(dir).filter((f) => f.endsWith('.sql') && f < '004').sort();
      await db.query('CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const file of previous) {
        await db.exec(fs.readFileSync(new URL(file, dir), 'utf8'));
        await db.query('INSERT INTO schema_migrations (id) VALUES ($1)', [file]);
      }
      // The previous version's rows: an organization with a treasury and a profile balance, three deposits.
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

      expect(await migrate(db)).toEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.sql') && f >= '004').sort());

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
});

describe.runIf(onPostgres)('concurrent treasury deposits (PostgreSQL)', () => {
  it('40 concurrent deposits to one treasury: exact balance, every transfer balanced', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base' });
    const results = await Promise.all(Array.from({ length: 40 }, () => t.call(org.key, 'POST', `/test/addresses/${address.id}/simulate-deposit`, { body: { amount: '0.25' } })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(40).fill(200));
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'base', balance: '10' }]);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});
