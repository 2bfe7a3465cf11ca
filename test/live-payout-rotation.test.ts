import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payout, PayoutQuote } from '../src/http/resources/payout.js';
import type { CustodyProvider } from '../src/custody/index.js';
import type { HotWallet, PayoutOutcome } from '../src/outbound/outcomes.js';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createTenant, creditDirect, extraKey, insertLiveAddress, json } from './support/partner.js';

type PayoutObject = Static<typeof Payout>;

const SOLANA_DESTINATION = 'So11111111111111111111111111111111111111112';
const STUCK = 120;
const SWEEP_LIMIT = 25;

/**
 * A stand-in hot wallet: every payout it is asked about stays stuck at its fee cap (sent, unmined), except
 * those in `confirming`, which the chain has confirmed. It counts how often it was asked about each payout.
 */
const confirming = new Set<string>();
const asked = new Map<string, number>();
const custody: CustodyProvider = {
  ...sandboxCustody,
  payoutRefusal: () => null,
};
const hotWallet: HotWallet = {
  async advance(request): Promise<PayoutOutcome> {
    asked.set(request.payoutId, (asked.get(request.payoutId) ?? 0) + 1);
    const txHash = `0x${request.payoutId.replaceAll('-', '')}`;
    return confirming.has(request.payoutId) ? { kind: 'confirmed', txHash } : { kind: 'sent', txHash, atFeeCap: true };
  },
};
const quiet = { warn: () => undefined, error: () => undefined };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ livePayouts: { leaseSeconds: 120, recheckSeconds: 0, sweepLimit: SWEEP_LIMIT, sweepSeconds: 5, sweepSecondsByNetwork: {} } }, undefined, {
    custodyFor: (mode) => (mode === 'live' ? custody : sandboxCustody),
    hotWallet,
  });
});
afterAll(() => t.close());

/** `count` live payouts of a new funded tenant, each past its first attempt. */
async function livePayouts(count: number): Promise<{ payouts: PayoutObject[]; key: string }> {
  const tenant = await createTenant(t);
  const key = await extraKey(t, tenant.organizationId, 'live');
  const addressId = await insertLiveAddress(t, tenant.organizationId);
  await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: String(count * 2) }, 'live');
  const payouts: PayoutObject[] = [];
  for (let i = 0; i < count; i++) {
    const quote = await t.call(key, 'POST', '/payouts/quote', { body: { asset: 'USDC', amount: '1', destination: SOLANA_DESTINATION }, idempotencyKey: randomUUID() });
    const res = await t.call(key, 'POST', '/payouts', { body: { quote_id: json<Static<typeof PayoutQuote>>(quote).quote_id }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    payouts.push(json<PayoutObject>(res));
  }
  await expect.poll(() => payouts.every((p) => asked.has(p.id))).toBe(true);
  return { payouts, key };
}

describe('live payout sweeps rotate through every due payout', () => {
  it(`${STUCK} payouts stuck at the fee cap do not stop a newer payout from being tracked and completed (a sweep takes ${SWEEP_LIMIT})`, async () => {
    const { payouts: stuck } = await livePayouts(STUCK);
    const {
      payouts: [newer],
      key,
    } = await livePayouts(1);
    confirming.add(newer!.id);
    // Every stuck payout is due again at once after each sweep (recheck 0): only rotation lets the newer one through.
    let sweeps = 0;
    while (json<PayoutObject>(await t.call(key, 'GET', `/payouts/${newer!.id}`)).status !== 'completed') {
      expect(sweeps).toBeLessThan(Math.ceil((STUCK + 1) / SWEEP_LIMIT) + 1);
      await t.ctx.outbound.sweep(quiet, ['solana']);
      sweeps++;
    }
    // And each sweep reached different stuck payouts: by then every one of them was looked at again.
    expect(stuck.filter((p) => (asked.get(p.id) ?? 0) < 2)).toEqual([]);
  });
});
