import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../src/use-cases/ledger.js';
import type { SweepLog } from '../src/outbound/engine.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { createAddress, createTenant, json, simulateAddress } from './support/partner.js';
import { executePayout, quotePayout, type PayoutObject } from './support/payouts.js';

let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({}, undefined, { clock });
  // Settling a payout whose id is in broken_payouts fails, as a bug or a broken row would make it.
  await t.db.exec(`
    CREATE TABLE broken_payouts (id uuid PRIMARY KEY);
    CREATE FUNCTION refuse_broken_settlement() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM broken_payouts WHERE NEW.cause = 'payout:' || id || ':settle') THEN RAISE EXCEPTION 'settlement refused (test)'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_broken_settlement BEFORE INSERT ON ledger_transfers FOR EACH ROW EXECUTE FUNCTION refuse_broken_settlement();
  `);
});
afterAll(() => t.close());
// What a test broke is mended after it, so the next test's sweeps meet only its own broken payout.
afterEach(() => t.db.query('DELETE FROM broken_payouts'));

/** A SweepLog that keeps what it is told. */
function recordingLog() {
  const lines: { level: 'warn' | 'error'; details: object; message: string }[] = [];
  const log: SweepLog = {
    warn: (details, message) => void lines.push({ level: 'warn', details, message }),
    error: (details, message) => void lines.push({ level: 'error', details, message }),
  };
  return { log, lines };
}

async function fundedPayout(): Promise<{ tenant: Tenant; payout: PayoutObject }> {
  const tenant = await createTenant(t);
  const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana' });
  await simulateAddress(t, tenant.key, address.id, '100');
  const executed = await executePayout(t, tenant.key, (await quotePayout(t, tenant.key, { amount: '10' })).quote_id);
  expect(executed.statusCode, executed.body).toBe(201);
  return { tenant, payout: json<PayoutObject>(executed) };
}

const payoutNow = async ({ tenant, payout }: { tenant: Tenant; payout: PayoutObject }) =>
  json<PayoutObject>(await t.call(tenant.key, 'GET', `/payouts/${payout.id}`));

/**
 * Two tenants' payouts, both processing and due; the broken one was created first, so the sweep comes to it
 * first. Answers them and what the sweep that found them due logged.
 */
async function dueWithOneBroken() {
  const broken = await fundedPayout();
  clock.advance(1_000);
  const healthy = await fundedPayout();
  await t.ctx.sandboxPayouts.advance(recordingLog().log);
  expect([(await payoutNow(broken)).status, (await payoutNow(healthy)).status]).toEqual(['processing', 'processing']);
  await t.db.query('INSERT INTO broken_payouts (id) VALUES ($1)', [broken.payout.id]);
  clock.advance(60_000);
  const { log, lines } = recordingLog();
  const moved = await t.ctx.sandboxPayouts.advance(log);
  return { broken, healthy, moved, lines, failedAt: clock.now() };
}

describe('the sandbox payout sweep', () => {
  it("a payout that fails to settle is skipped and logged at error level by id; another tenant's payout still completes in the same sweep", async () => {
    const { broken, healthy, moved, lines } = await dueWithOneBroken();
    expect((await payoutNow(healthy)).status).toBe('completed');
    expect((await payoutNow(broken)).status).toBe('processing');
    expect(moved).toBe(1);
    expect(lines).toEqual([
      { level: 'error', details: expect.objectContaining({ payoutId: broken.payout.id, err: expect.any(Error) }), message: expect.stringContaining(broken.payout.id) },
    ]);
    expect(await verifyLedger(t.db)).toMatchObject({ ok: true });
  });

  it('a payout that fails to settle is put back a minute, so the next sweeps do not come to it first, and completes once it can', async () => {
    const { broken, failedAt } = await dueWithOneBroken();
    expect((await payoutNow(broken)).estimated_delivery_at).toBe(new Date(failedAt.getTime() + 60_000).toISOString());
    const later = recordingLog();
    clock.advance(59_999);
    await t.ctx.sandboxPayouts.advance(later.log);
    expect(later.lines).toEqual([]);

    await t.db.query('DELETE FROM broken_payouts WHERE id = $1', [broken.payout.id]);
    clock.advance(1);
    await t.ctx.sandboxPayouts.advance(later.log);
    expect(later.lines).toEqual([]);
    expect((await payoutNow(broken)).status).toBe('completed');
    expect(await verifyLedger(t.db)).toMatchObject({ ok: true });
  });
});
