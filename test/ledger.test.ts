import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { TREASURY_SHARDS } from '../src/domain/ledger.js';
import { creditFromWorld } from '../src/store/ledger.js';
import { foldTenantTotals } from '../src/store/tenant-totals.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import { startTestApp, workerSerializers, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
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
  const code = await runCli(argv, io, async () => ({ ...t.db, close: async () => {} }), process.env, workerSerializers());
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
  it('passes on a consistent ledger and prints what it checked, in snake_case like the API', async () => {
    const run = await cli(['ledger', 'verify']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual(['account_mismatches', 'accounts', 'ok', 'postings', 'tenant_total_mismatches', 'transfers', 'unbalanced_transfers']);
    expect(report).toMatchObject({ ok: true, account_mismatches: [], unbalanced_transfers: [], tenant_total_mismatches: [] });
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

describe('tenant-wide totals in the ledger check', () => {
  it('catches a tenant total altered by hand: ok false, naming the tenant, the line and both figures, in the operator API and the CLI alike', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base', external_ref: 'someone' });
    await simulateAddress(t, org.key, address.id, '2');
    await foldTenantTotals(t.db);
    const tamper = (by: number) =>
      t.db.query(
        `UPDATE tenant_totals SET available = available + CASE WHEN asset IS NULL THEN 0 ELSE $2::numeric END,
           profiles = profiles + CASE WHEN asset IS NULL THEN $2::int ELSE 0 END
         WHERE organization_id = $1`,
        [org.organizationId, by],
      );
    await tamper(1);
    try {
      const report = await verifyLedger(t.db);
      expect(report.ok).toBe(false);
      expect(report.accountMismatches).toEqual([]);
      expect(report.unbalancedTransfers).toEqual([]);
      const mismatches = [
        { organization: org.organizationId, mode: 'test', asset: null, network: null, quantity: 'profiles', total: '2', counted: '1' },
        { organization: org.organizationId, mode: 'test', asset: 'USDC', network: 'base', quantity: 'available', total: '3', counted: '2' },
      ];
      expect(report.tenantTotalMismatches).toEqual(mismatches);
      expect((await t.admin('GET', '/ledger/verification')).json()).toMatchObject({ ok: false, tenant_total_mismatches: mismatches });
      const run = await cli(['ledger', 'verify']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('2 tenant total(s) that differ from their accounts');
    } finally {
      await tamper(-1);
    }
    expect((await verifyLedger(t.db)).ok).toBe(true);
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
