import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { foldTenantTotals } from '../src/store/tenant-totals.js';
import { reverseDeposit } from '../src/use-cases/deposits.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import { createAddress, createTenant, json, postAddressSimulation, simulateAddress } from './support/partner.js';
import { executePayout, quotePayout, simulatePayout, type PayoutObject } from './support/payouts.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Line {
  asset: string;
  network: string;
  amount: string;
  reserved: string;
}

/** GET /balances without external_ref: the lines (without their valuations) and profiles_count. */
async function tenantWide(tenant: Tenant): Promise<{ lines: Line[]; profiles: number; body: string }> {
  const res = await t.call(tenant.key, 'GET', '/balances');
  expect(res.statusCode, res.body).toBe(200);
  const view = json<{ balances: Line[]; profiles_count: number }>(res);
  return {
    lines: view.balances.map(({ asset, network, amount, reserved }) => ({ asset, network, amount, reserved })),
    profiles: view.profiles_count,
    // The whole answer as sent but for valued_at, which is when prices were read (now, with the built-in rate sheet).
    body: res.body.replace(/"valued_at":"[^"]*"/, '"valued_at":…'),
  };
}

/**
 * The same answer summed the way it was before running totals: every available and reserved account of the
 * tenant, and its profiles counted.
 */
async function summedFromAccounts(tenant: Tenant): Promise<{ lines: Line[]; profiles: number }> {
  const lines = await t.db.query<Line>(
    `SELECT asset, network,
       coalesce(sum(balance) FILTER (WHERE kind = 'available'), 0)::text AS amount,
       coalesce(sum(balance) FILTER (WHERE kind = 'reserved'), 0)::text AS reserved
     FROM ledger_accounts WHERE organization_id = $1 AND mode = 'test' AND kind IN ('available', 'reserved')
     GROUP BY asset, network HAVING sum(balance) > 0 ORDER BY asset, network`,
    [tenant.organizationId],
  );
  const [{ n }] = (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM profiles WHERE organization_id = $1 AND mode = 'test'", [
    tenant.organizationId,
  ])) as [{ n: number }];
  // As the API writes amounts: no trailing zeros.
  const normal = (value: string) => new Decimal(value).toFixed();
  return { lines: lines.map((l) => ({ ...l, amount: normal(l.amount), reserved: normal(l.reserved) })), profiles: n };
}

const unfolded = async (tenant: Tenant) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenant_total_deltas WHERE organization_id = $1', [tenant.organizationId]))[0]!.n;

/** The tenant-wide answer must equal the accounts' sum both before the fold (read from deltas) and after it, byte for byte. */
async function expectTotalsMatchAccounts(tenant: Tenant, expected: { lines: Line[]; profiles: number }): Promise<void> {
  expect(await summedFromAccounts(tenant)).toEqual(expected);
  expect(await unfolded(tenant)).toBeGreaterThan(0);
  const before = await tenantWide(tenant);
  expect({ lines: before.lines, profiles: before.profiles }).toEqual(expected);
  await foldTenantTotals(t.db);
  expect(await unfolded(tenant)).toBe(0);
  const after = await tenantWide(tenant);
  expect(after.body).toBe(before.body);
  expect((await verifyLedger(t.db)).tenantTotalMismatches).toEqual([]);
}

async function payout(tenant: Tenant, amount: string, externalRef: string): Promise<PayoutObject> {
  const quote = await quotePayout(t, tenant.key, { amount, external_ref: externalRef });
  const res = await executePayout(t, tenant.key, quote.quote_id);
  expect(res.statusCode, res.body).toBe(201);
  return json<PayoutObject>(res);
}

describe('the tenant-wide balance kept as running totals', () => {
  it('equals the sum of the accounts after deposits to the organization and to users', async () => {
    const tenant = await createTenant(t);
    const own = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana' });
    await simulateAddress(t, tenant.key, own.id, '10');
    for (const [ref, asset, network, amount] of [
      ['a', 'USDC', 'solana', '2.25'],
      ['b', 'USDC', 'solana', '0.75'],
      ['b', 'ETH', 'base', '0.000000000000000001'],
    ] as const) {
      const address = await createAddress(t, tenant.key, { asset, network, external_ref: ref });
      await simulateAddress(t, tenant.key, address.id, amount);
    }
    await expectTotalsMatchAccounts(tenant, {
      lines: [
        { asset: 'ETH', network: 'base', amount: '0.000000000000000001', reserved: '0' },
        { asset: 'USDC', network: 'solana', amount: '13', reserved: '0' },
      ],
      profiles: 2,
    });
  });

  it('follows a payout: reserved when created, gone when settled, back to available when it fails', async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: 'payer' });
    await simulateAddress(t, tenant.key, address.id, '100');
    const settled = await payout(tenant, '20', 'payer');
    const failed = await payout(tenant, '30', 'payer');
    const reserved = (await summedFromAccounts(tenant)).lines[0]!;
    expect(reserved.reserved).not.toBe('0');
    await expectTotalsMatchAccounts(tenant, { lines: [reserved], profiles: 1 });

    expect((await simulatePayout(t, tenant.key, settled.id, 'completed')).statusCode).toBe(200);
    expect((await simulatePayout(t, tenant.key, failed.id, 'failed')).statusCode).toBe(200);
    const after = await summedFromAccounts(tenant);
    // What left is the settled payout and its fee; the failed one's reserve is available again.
    expect(after.lines.map((l) => l.reserved)).toEqual(['0']);
    expect(new Decimal(after.lines[0]!.amount).lte(80)).toBe(true);
    await expectTotalsMatchAccounts(tenant, after);
  });

  /** Takes back (as a chain reorganization would) the deposit of `amount` to the address. */
  async function reverseTheDeposit(tenant: { organizationId: string }, addressId: string, amount: string) {
    const [deposit] = await t.db.query<{ id: string; network: string; tx_hash: string; output_index: number }>(
      'SELECT id, network, tx_hash, output_index FROM transactions WHERE address_id = $1 AND amount = $2',
      [addressId, amount],
    );
    await t.db.transaction((tx) =>
      reverseDeposit(
        tx,
        { organizationId: tenant.organizationId, mode: 'test' },
        { network: deposit!.network, txHash: deposit!.tx_hash, outputIndex: deposit!.output_index, transactionId: deposit!.id },
        t.ctx.clock,
      ),
    );
  }

  it('follows a reversal: a deposit taken back leaves the total', async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDT', network: 'tron', external_ref: 'reorged' });
    await simulateAddress(t, tenant.key, address.id, '7');
    await simulateAddress(t, tenant.key, address.id, '5');
    await foldTenantTotals(t.db);
    await reverseTheDeposit(tenant, address.id, '5');
    await expectTotalsMatchAccounts(tenant, { lines: [{ asset: 'USDT', network: 'tron', amount: '7', reserved: '0' }], profiles: 1 });
  });

  it('a line whose funds all left is left out, as before', async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: 'leaves' });
    await simulateAddress(t, tenant.key, address.id, '3');
    await reverseTheDeposit(tenant, address.id, '3');
    await expectTotalsMatchAccounts(tenant, { lines: [], profiles: 1 });
  });

  it('concurrent deposits to many profiles, with folds running meanwhile, lose nothing', async () => {
    const tenant = await createTenant(t);
    const users = 12;
    const addresses = await Promise.all(
      Array.from({ length: users }, (_, i) => createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: `crowd-${i}` })),
    );
    const treasury = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana' });
    let depositing = true;
    const folding = (async () => {
      let folds = 0;
      while (depositing || folds === 0) {
        await foldTenantTotals(t.db);
        folds++;
        // Room for the deposits: on PGlite every transaction takes turns on its one connection.
        await sleep(2);
      }
      return folds;
    })();
    const answers = await Promise.all(
      [...addresses, treasury, treasury, treasury].flatMap((address) => Array.from({ length: 4 }, () => postAddressSimulation(t, tenant.key, address.id, '0.25'))),
    );
    depositing = false;
    expect(await folding).toBeGreaterThan(0);
    expect(answers.map((a) => a.statusCode)).toEqual(Array(answers.length).fill(200));
    // 12 users and the treasury's three addresses, 4 deposits of 0.25 each.
    const expected = { lines: [{ asset: 'USDC', network: 'solana', amount: '15', reserved: '0' }], profiles: users };
    expect(await summedFromAccounts(tenant)).toEqual(expected);
    const read = await tenantWide(tenant);
    expect({ lines: read.lines, profiles: read.profiles }).toEqual(expected);
    await foldTenantTotals(t.db);
    expect((await tenantWide(tenant)).body).toBe(read.body);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it.runIf(onPostgres)('a read while a fold commits sees every delta once: never both in the totals and unfolded, nor neither (PostgreSQL)', async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: 'watched' });
    for (let round = 1; round <= 10; round++) {
      await simulateAddress(t, tenant.key, address.id, '1');
      const [, ...seen] = await Promise.all([foldTenantTotals(t.db), ...Array.from({ length: 4 }, () => tenantWide(tenant))]);
      expect(seen.map((s) => s.lines[0]!.amount)).toEqual(Array(4).fill(String(round)));
    }
  });
});
