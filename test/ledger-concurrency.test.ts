import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import { startTestApp, type TestApp } from './support/app.js';
import { accountsOf, createAddress, createTenant, json, postAddressSimulation, simulateAddress } from './support/partner.js';
import { executePayout, quotePayout, simulatePayout, type PayoutObject, type QuoteObject } from './support/payouts.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Enough, on PostgreSQL, for executions and failures on one owner to deadlock in most runs when locks are taken out of order. */
const ROUNDS = 6;
const PAYOUTS_PER_OWNER = 8;
const DEPOSITS_PER_OWNER = 4;
const FUNDS = '1000';
const DEPOSIT = '0.5';

interface Owner {
  externalRef: string | null;
  addressId: string;
  /** What its available balance should be once every answer is in. */
  available: Decimal;
}

/** The answers that are not `expected`, described; a deadlock's SQLSTATE must not show in any answer either. */
const unexpected = (answers: LightMyRequestResponse[], expected: number, what: string) =>
  answers.filter((a) => a.statusCode !== expected || a.body.includes('40P01')).map((a) => `${what}: ${a.statusCode} ${a.body}`);

describe('ledger lock order', () => {
  it('concurrent payout executions, simulated failures and completions and deposits on one end user and one treasury never deadlock: no conflict retried, no 500, balances exact, the ledger verifies', async () => {
    const tenant = await createTenant(t);
    const owners: Owner[] = [];
    for (const externalRef of [null, 'lock-order-payer']) {
      const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', ...(externalRef ? { external_ref: externalRef } : {}) });
      await simulateAddress(t, tenant.key, address.id, FUNDS);
      owners.push({ externalRef, addressId: address.id, available: new Decimal(FUNDS) });
    }
    const conflicts = t.db.conflicts();
    let open: { owner: Owner; payout: PayoutObject }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const quotes: { owner: Owner; quote: QuoteObject }[] = [];
      for (const owner of owners) {
        for (let i = 0; i < PAYOUTS_PER_OWNER; i++) {
          quotes.push({ owner, quote: await quotePayout(t, tenant.key, { amount: '1', ...(owner.externalRef ? { external_ref: owner.externalRef } : {}) }) });
        }
      }
      const failing = open.filter((_, i) => i % 2 === 0);
      const completing = open.filter((_, i) => i % 2 === 1);
      // This round's executions run beside the outcomes of the last round's payouts and deposits, all on the same two owners.
      const [executed, failed, completed, deposited] = await Promise.all([
        Promise.all(quotes.map(({ quote }) => executePayout(t, tenant.key, quote.quote_id))),
        Promise.all(failing.map(({ payout }) => simulatePayout(t, tenant.key, payout.id, 'failed'))),
        Promise.all(completing.map(({ payout }) => simulatePayout(t, tenant.key, payout.id, 'completed'))),
        Promise.all(owners.flatMap((owner) => Array.from({ length: DEPOSITS_PER_OWNER }, () => postAddressSimulation(t, tenant.key, owner.addressId, DEPOSIT)))),
      ]);
      // Checked each round, so that a deadlock fails the test at once: each one costs PostgreSQL's deadlock_timeout.
      expect({
        unexpected: [
          ...unexpected(executed, 201, 'execute'),
          ...unexpected([...failed, ...completed], 200, 'simulated outcome'),
          ...unexpected(deposited, 200, 'deposit'),
        ],
        // Retries would hide a deadlock from the answers; locks taken in one order leave none to retry.
        conflicts: t.db.conflicts() - conflicts,
      }, `round ${round}`).toEqual({ unexpected: [], conflicts: 0 });
      for (const { owner, quote } of quotes) owner.available = owner.available.minus(quote.user_sends);
      for (const { owner, payout } of failing) owner.available = owner.available.plus(payout.quote.user_sends);
      for (const owner of owners) owner.available = owner.available.plus(new Decimal(DEPOSIT).times(DEPOSITS_PER_OWNER));
      open = executed.map((answer, i) => ({ owner: quotes[i]!.owner, payout: json<PayoutObject>(answer) }));
    }
    expect((await accountsOf(t, tenant.organizationId)).map((a) => a.balance)).toEqual(owners.map((o) => o.available.toFixed()));
    expect(await verifyLedger(t.db)).toMatchObject({ ok: true });
  });
});
