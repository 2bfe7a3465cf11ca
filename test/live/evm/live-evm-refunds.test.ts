import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { erc20Abi, parseUnits, type Address } from 'viem';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Refund, RefundQuote } from '../../../src/http/resources/refund.js';
import { Decimal } from '../../../src/domain/money.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import { crashPoints, leaseLapses } from '../../support/crash-points.js';
import type { Anvil } from '../../support/evm/anvil.js';
import { HOT_WALLET, quiet, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from '../../support/evm/live-app.js';
import { livePayoutKit, useLivePayoutWorld } from '../../support/evm/live-payouts.js';
import { createIntent, createTenant, eventsInOrder, json } from '../../support/partner.js';

type RefundObject = Static<typeof Refund>;

/**
 * A refund is a payout of kind refund: on a live EVM chain it goes out through the same engine, from the hot
 * wallet, and survives a killed process as a payout does (test/live/evm/live-payout-crash-points.test.ts), with a quarter of
 * the RPC answers from a backend lagging past the confirmations (issue 34).
 */
const crash = crashPoints();
const world = useLivePayoutWorld({ atPayoutBoundary: crash.atBoundary }, { seed: 34, share: 0.25 });
const { tokenBalance, available, freshDestination, nudge } = livePayoutKit(world);
let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;
beforeAll(async () => {
  ({ anvil, ethereum, t } = world);
  await anvil.sendToken(ethereum.usdc, HOT_WALLET, '100000');
});
afterEach(crash.reset);

/** A live tenant and a 10 USDC intent its payer paid `paid` on ethereum, credited by the watcher. */
async function paidLiveIntent(paid: string) {
  const tenant = await createTenant(t, { mode: 'live' });
  const intent = await createIntent(t, tenant.key);
  const address = intent.addresses.find((a) => a.network === 'ethereum')!;
  await anvil.sendToken(ethereum.usdc, address.address, paid);
  await anvil.mine(TEST_CONFIRMATIONS);
  expect(await watcherFor(t, ethereum).tick()).toBe(1);
  return { tenant, intent };
}

async function refundOf(key: string, intentId: string, body: Record<string, unknown>): Promise<RefundObject> {
  const quote = await t.call(key, 'POST', `/payment-intents/${intentId}/refunds/quote`, { body, idempotencyKey: randomUUID() });
  expect(quote.statusCode, quote.body).toBe(201);
  const res = await t.call(key, 'POST', '/refunds', { body: { quote_id: json<Static<typeof RefundQuote>>(quote).quote_id }, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  return json<RefundObject>(res);
}

const statusOf = async (key: string, id: string) => json<RefundObject>(await t.call(key, 'GET', `/refunds/${id}`));

/** Sweeps (mining the confirmations between) until the refund is settled. */
async function settled(key: string, id: string): Promise<RefundObject> {
  for (let round = 0; round < 8; round++) {
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet, ['ethereum']);
    const refund = await statusOf(key, id);
    if (refund.status === 'completed' || refund.status === 'failed') return refund;
  }
  throw new Error(`refund ${id} is still open after 8 sweeps`);
}

const transfersTo = (destination: string) =>
  anvil.client.getContractEvents({ address: ethereum.usdc, abi: erc20Abi, eventName: 'Transfer', args: { to: destination as Address }, fromBlock: 0n });

describe('live refunds on EVM', () => {
  it('the overpaid part goes back from the hot wallet, fee deducted: one transfer of recipient_gets, completed at its confirmations', async () => {
    const { tenant, intent } = await paidLiveIntent('13');
    const destination = freshDestination();
    const refund = await refundOf(tenant.key, intent.id, { portion: 'excess', destination, network_fee: 'deducted' });
    expect(refund).toMatchObject({ status: 'pending', amount: '3', owner_pays: '3', network: 'ethereum' });
    expect(await available(tenant.organizationId)).toBe('10');
    // The first attempt runs after the commit and holds the lease until it has broadcast: sweeps before then find nothing.
    await expect
      .poll(
        async () => {
          nudge();
          return (await statusOf(tenant.key, refund.id)).status;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe('processing');

    const done = await settled(tenant.key, refund.id);
    expect(done.status).toBe('completed');
    const transfers = await transfersTo(destination);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.transactionHash).toBe(done.tx_hash);
    expect(await tokenBalance(destination)).toBe(parseUnits(done.recipient_gets, 6));
    expect((await eventsInOrder(t, tenant.key, intent.id)).map((e) => e.type).slice(-2)).toEqual(['refund.created', 'refund.completed']);
    const [row] = json<{ data: { status: string; tx_hash: string; refund: unknown }[] }>(await t.call(tenant.key, 'GET', '/transactions?type=refund')).data;
    expect(row).toMatchObject({ status: 'confirmed', tx_hash: done.tx_hash, refund: { id: refund.id, payment_intent_id: intent.id } });
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it.each(['signed', 'broadcast'] as const)('killed after %s, then taken over once its lease lapsed: exactly one transfer, completed once', async (boundary) => {
    const { tenant, intent } = await paidLiveIntent('10');
    const destination = freshDestination();
    crash.stopAt(boundary);
    const refund = await refundOf(tenant.key, intent.id, { amount: '4', destination, network_fee: 'on_top' });
    await crash.stoppedThere(refund.id, nudge);
    await t.ctx.outbound.sweep(quiet, ['ethereum']);
    expect((await statusOf(tenant.key, refund.id)).status).toBe('pending');

    await leaseLapses(t, refund.id);
    const done = await settled(tenant.key, refund.id);
    expect(done.status).toBe('completed');
    expect(await transfersTo(destination)).toHaveLength(1);
    expect(await tokenBalance(destination)).toBe(parseUnits('4', 6));
    expect(await available(tenant.organizationId)).toBe(new Decimal(10).minus(done.owner_pays).toFixed());
    expect((await eventsInOrder(t, tenant.key, intent.id)).filter((e) => e.type.startsWith('refund.')).map((e) => e.type)).toEqual([
      'refund.created',
      'refund.completed',
    ]);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});
