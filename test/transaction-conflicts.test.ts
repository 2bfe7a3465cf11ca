import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { TRANSACTION_ATTEMPTS } from '../src/store/database.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import { startTestApp, type TestApp } from './support/app.js';
import { accountsOf, createAddress, createTenant, json, postAddressSimulation } from './support/partner.js';
import { executePayout, quotePayout, simulatePayout, type PayoutObject } from './support/payouts.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await t.db.exec(`
    CREATE TABLE retry_probe (attempt int NOT NULL);
    -- Raises a deadlock from the first ledger transfer written after a test sets the sequence back to 1.
    CREATE SEQUENCE transfer_conflicts;
    CREATE FUNCTION conflict_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('transfer_conflicts') = 1 THEN RAISE EXCEPTION 'conflict (test)' USING ERRCODE = '40P01'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER conflict_once BEFORE INSERT ON ledger_transfers FOR EACH ROW EXECUTE FUNCTION conflict_once();
    SELECT setval('transfer_conflicts', 100);
  `);
});
afterAll(() => t.close());

/** Raises `code` in the transaction's attempts numbered in `failing` (from 1), after it wrote its attempt number. */
async function probe(code: string, failing: (attempt: number) => boolean): Promise<{ attempts: number; error: unknown; committed: number[] }> {
  await t.db.query('DELETE FROM retry_probe');
  let attempts = 0;
  let error: unknown = null;
  try {
    await t.db.transaction(async (tx) => {
      attempts++;
      await tx.query('INSERT INTO retry_probe (attempt) VALUES ($1)', [attempts]);
      if (failing(attempts)) await tx.exec(`DO $$ BEGIN RAISE EXCEPTION 'conflict (test)' USING ERRCODE = '${code}'; END $$`);
    });
  } catch (caught) {
    error = caught;
  }
  const rows = await t.db.query<{ attempt: number }>('SELECT attempt FROM retry_probe ORDER BY attempt');
  return { attempts, error, committed: rows.map((r) => r.attempt) };
}

describe('transactions the database aborts for a conflict', () => {
  it.each([
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('one aborted by %s (%s) runs again from the start and commits once', async (_what, code) => {
    expect(await probe(code, (attempt) => attempt === 1)).toEqual({ attempts: 2, error: null, committed: [2] });
  });

  it(`one that keeps conflicting is given up after ${TRANSACTION_ATTEMPTS} attempts, its error thrown and nothing committed`, async () => {
    const { attempts, error, committed } = await probe('40P01', () => true);
    expect({ attempts, committed }).toEqual({ attempts: TRANSACTION_ATTEMPTS, committed: [] });
    expect(error).toMatchObject({ code: '40P01' });
  });

  it('one failing with another error runs once', async () => {
    const { attempts, error, committed } = await probe('23505', (attempt) => attempt === 1);
    expect({ attempts, committed }).toEqual({ attempts: 1, committed: [] });
    expect(error).toMatchObject({ code: '23505' });
  });

  it('a deposit, a payout execution and a payout failure whose transaction deadlocks once are answered as usual, posted once', async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana' });
    /** Makes the next ledger transfer raise a deadlock, and answers whether one was raised and retried since. */
    const conflictOnce = async () => {
      await t.db.query("SELECT setval('transfer_conflicts', 1, false)");
      return async () => (await t.db.query<{ n: string }>("SELECT last_value::text AS n FROM transfer_conflicts"))[0]!.n === '2';
    };

    let retried = await conflictOnce();
    expect((await postAddressSimulation(t, tenant.key, address.id, '100')).statusCode).toBe(200);
    expect(await retried()).toBe(true);
    const quote = await quotePayout(t, tenant.key, { amount: '10' });
    retried = await conflictOnce();
    const executed = await executePayout(t, tenant.key, quote.quote_id);
    expect(executed.statusCode, executed.body).toBe(201);
    expect(await retried()).toBe(true);
    expect((await accountsOf(t, tenant.organizationId)).map((a) => a.balance)).toEqual([new Decimal(100).minus(quote.user_sends).toFixed()]);
    retried = await conflictOnce();
    const failed = await simulatePayout(t, tenant.key, json<PayoutObject>(executed).id, 'failed');
    expect(failed.statusCode, failed.body).toBe(200);
    expect(await retried()).toBe(true);
    expect((await accountsOf(t, tenant.organizationId)).map((a) => a.balance)).toEqual(['100']);
    expect(await verifyLedger(t.db)).toMatchObject({ ok: true });
  });
});
