import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import type { AssetPolicy } from '../src/domain/treasury-policy.js';
import { Catalog } from '../src/domain/catalog.js';
import { NetworkFees } from '../src/domain/network-fees.js';
import { planSweeps, sweepCostUsd, type Holding } from '../src/domain/treasury-plan.js';
import { planWarning, type AssetPlan } from '../src/use-cases/asset-plan.js';

const d = (value: string | number) => new Decimal(value);
const policy = (over: Partial<AssetPolicy> = {}): AssetPolicy => ({
  network: 'ethereum',
  asset: 'USDC',
  floatLow: d(5_000),
  floatTarget: d(20_000),
  floatHigh: d(30_000),
  coldAddress: null,
  minSweep: d(25),
  maxCostShare: d('0.01'),
  ...over,
});
const hold = (address: string, amount: number | string): Holding => ({ address, amount: d(amount) });
const flatCost = (cost: string) => () => d(cost);
const summary = (plan: ReturnType<typeof planSweeps>) => ({
  sweeps: plan.sweeps.map((s) => `${s.address} ${s.amount} → ${s.to}`),
  skipped: plan.skipped.map((s) => `${s.address} ${s.amount}: ${s.reason}`),
  after: plan.float.after.toString(),
});

describe('sweep plan (docs/treasury.md, "What a sweep plan does")', () => {
  it('fills the hot wallet up to its target, largest balances first, and leaves the rest on deposit addresses without a cold address', () => {
    const plan = planSweeps(policy(), [hold('a', 4_000), hold('b', 9_000), hold('c', 6_000), hold('d', 3_000)], { balance: d(1_000), incoming: d(2_000), owed: d(0) }, flatCost('1'), false);
    expect(summary(plan)).toEqual({ sweeps: ['b 9000 → hot_wallet', 'c 6000 → hot_wallet', 'a 4000 → hot_wallet'], skipped: ['d 3000: float_full'], after: '22000' });
    expect(plan.float.level).toBe('low');
  });

  it('sends what the float does not need to the cold address when the policy names one', () => {
    const plan = planSweeps(policy({ coldAddress: '0xc01d' }), [hold('a', 15_000), hold('b', 10_000)], { balance: d(10_000), incoming: d(0), owed: d(0) }, flatCost('1'), false);
    expect(summary(plan).sweeps).toEqual(['a 15000 → hot_wallet', 'b 10000 → cold_storage']);
  });

  it('never takes the hot wallet above float_high: a balance that would goes to cold storage, or stays', () => {
    const holdings = [hold('big', 25_000), hold('small', 8_000)];
    expect(summary(planSweeps(policy(), holdings, { balance: d(10_000), incoming: d(0), owed: d(0) }, flatCost('1'), false))).toMatchObject({
      sweeps: ['small 8000 → hot_wallet'],
      skipped: ['big 25000: float_full'],
    });
    expect(summary(planSweeps(policy({ coldAddress: '0xc01d' }), holdings, { balance: d(10_000), incoming: d(0), owed: d(0) }, flatCost('1'), false)).sweeps).toEqual([
      'big 25000 → cold_storage',
      'small 8000 → hot_wallet',
    ]);
  });

  it('skips an address below min_sweep, and one whose sweep costs more than max_cost_share of what it moves', () => {
    const plan = planSweeps(policy(), [hold('dust', '24.999999'), hold('costly', 90), hold('fine', 100)], { balance: d(0), incoming: d(0), owed: d(0) }, flatCost('1'), false);
    expect(summary(plan)).toMatchObject({ sweeps: ['fine 100 → hot_wallet'], skipped: ['costly 90: too_costly', 'dust 24.999999: below_minimum'] });
  });

  it('a native coin pays its sweep out of what it moves: what arrives is the balance less the cost', () => {
    const plan = planSweeps(policy({ asset: 'ETH', floatTarget: d(10), floatHigh: d(20), floatLow: d(1), minSweep: d('0.01') }), [hold('a', '0.5')], { balance: d(0), incoming: d(0), owed: d(0) }, flatCost('0.0021'), true);
    expect(plan.sweeps.map((s) => [s.amount.toString(), s.arrives.toString(), s.cost.toString()])).toEqual([['0.5', '0.4979', '0.0021']]);
    expect(plan.float.after.toString()).toBe('0.4979');
  });

  it('counts sweeps already on their way as float: nothing more is swept to a float they fill', () => {
    const plan = planSweeps(policy(), [hold('a', 5_000)], { balance: d(2_000), incoming: d(18_000), owed: d(0) }, flatCost('1'), false);
    expect(summary(plan)).toMatchObject({ sweeps: [], skipped: ['a 5000: float_full'] });
    expect(plan.float.level).toBe('ok');
  });

  it('counts live payouts not yet sent against the float: a payout waiting for funds makes the plan fill the hot wallet for it', () => {
    // 5,000 on hand, 4,000 owed to a payout: 1,000 of float, so 19,000 goes to the hot wallet, not 15,000.
    const plan = planSweeps(policy({ coldAddress: '0xc01d' }), [hold('a', 19_000), hold('b', 9_000)], { balance: d(5_000), incoming: d(0), owed: d(4_000) }, flatCost('1'), false);
    expect(summary(plan)).toMatchObject({ sweeps: ['a 19000 → hot_wallet', 'b 9000 → cold_storage'] });
    expect(plan.float).toMatchObject({ level: 'low', now: d(1_000), after: d(20_000) });
  });

  it('below float_low the hot wallet takes a sweep even past float_high: a payout waiting for funds is never left unfunded by a large deposit', () => {
    const plan = planSweeps(policy({ floatTarget: d(100), floatLow: d(10), floatHigh: d(200) }), [hold('a', 500)], { balance: d(0), incoming: d(0), owed: d(50) }, flatCost('1'), false);
    expect(summary(plan)).toMatchObject({ sweeps: ['a 500 → hot_wallet'], skipped: [], after: '450' });
  });

  it('says the float is high above float_high', () => {
    expect(planSweeps(policy(), [], { balance: d('30000.000001'), incoming: d(0), owed: d(0) }, flatCost('1'), false).float.level).toBe('high');
  });
});

describe('what a sweep is expected to cost (network-fees.json, the payout quotes\' estimates)', () => {
  const catalog = Catalog.load();
  const fees = NetworkFees.load(undefined, catalog);
  const cost = (asset: string, network: string) => sweepCostUsd(fees, catalog.network(network)!, asset)?.toFixed();

  it('a token on EVM or Tron: its transfer and the native top-up before it; a native coin: its own transfer', () => {
    expect(cost('USDC', 'ethereum')).toBe('3.9');
    expect(cost('USDT', 'tron')).toBe('3.5');
    expect(cost('ETH', 'ethereum')).toBe('1.5');
  });

  it('a token on Solana: its transfer alone (the hot wallet pays the fee; no top-up)', () => {
    expect(cost('USDC', 'solana')).toBe('0.01');
  });
});

describe('what the periodic plan tells the operator (docs/treasury.md, "Payouts waiting for funds")', () => {
  const made = (hot: { balance: number; owed: number }, holdings: Holding[]): AssetPlan => {
    const asset = policy({ floatTarget: d(100), floatLow: d(10), floatHigh: d(200), maxCostShare: d('0.1') });
    const plan = planSweeps(asset, holdings, { balance: d(hot.balance), incoming: d(0), owed: d(hot.owed) }, flatCost('1'), false);
    return { policy: asset, pause: null, hotWallet: '0xhot', error: null, plan, depositAddresses: null, coldBalance: null };
  };

  it('payouts waiting for funds that deposits can cover: asks for the sweep, naming what it brings', () => {
    expect(planWarning(made({ balance: 0, owed: 50 }, [hold('a', 80)]))).toEqual({
      details: { network: 'ethereum', asset: 'USDC', owed: '50', held: '0', to_hot_wallet: '80', sweeps: '1' },
      message: 'treasury: payouts wait for funds, and deposit addresses hold enough: sweep them to the hot wallet (connect-payments treasury plan)',
    });
  });

  it('payouts waiting for more than deposits hold: asks for a top-up', () => {
    expect(planWarning(made({ balance: 0, owed: 500 }, [hold('a', 80)]))?.message).toBe('treasury: payouts wait for funds, and deposit addresses do not hold enough: top up the hot wallet');
  });

  it('a low float alone is said; a float at its marks, nothing', () => {
    expect(planWarning(made({ balance: 5, owed: 0 }, []))?.message).toBe('treasury: the hot float is below its low-water mark');
    expect(planWarning(made({ balance: 150, owed: 0 }, []))).toBeNull();
  });

  it('no plan: says why', () => {
    const plan = { ...made({ balance: 0, owed: 0 }, []), plan: null, error: 'the RPC URL serves chain 8453, not 1' };
    expect(planWarning(plan)).toEqual({ details: { network: 'ethereum', asset: 'USDC', error: 'the RPC URL serves chain 8453, not 1' }, message: 'treasury: no sweep plan (GET /admin/v1/treasury/status)' });
  });
});
