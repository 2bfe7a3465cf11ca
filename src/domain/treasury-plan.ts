import type { Network } from './catalog.js';
import type { Decimal } from './money.js';
import type { NetworkFees } from './network-fees.js';
import type { AssetPolicy } from './treasury-policy.js';

/** What one deposit address holds of the asset and may be swept: credited, on chain, not already being swept. */
export interface Holding {
  address: string;
  amount: Decimal;
}

/**
 * The hot wallet's float of the asset: on chain, and on its way there from sweeps already sent, less what live
 * payouts not yet sent will take from it (`owed`: a payout waiting for funds makes the float short by its amount).
 */
export interface HotFloat {
  balance: Decimal;
  incoming: Decimal;
  owed: Decimal;
}

export const SWEEP_DESTINATIONS = ['hot_wallet', 'cold_storage'] as const;
export type SweepDestination = (typeof SWEEP_DESTINATIONS)[number];

/**
 * Why an address is left as it is. below_minimum: it holds less than the policy's min_sweep; too_costly: the
 * sweep would cost more than max_cost_share of what it moves; float_full: the hot wallet needs none of it (at its
 * target, or the sweep would take it above float_high) and the policy names no cold address, so it stays on its
 * deposit address, under the offline seed, rather than on the hot wallet.
 */
export const SKIP_REASONS = ['below_minimum', 'too_costly', 'float_full'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** low: below float_low (sweeps run at once, /readyz says so); high: above float_high; ok: between. */
export const FLOAT_LEVELS = ['low', 'ok', 'high'] as const;
export type FloatLevel = (typeof FLOAT_LEVELS)[number];

export interface PlannedSweep {
  address: string;
  /** What leaves the deposit address: its whole credited balance of the asset (what waits there stays). */
  amount: Decimal;
  /** What arrives: the amount, less the sweep's cost when that is paid in the asset itself (a native coin). */
  arrives: Decimal;
  /** What the sweep is expected to cost, valued in the asset. */
  cost: Decimal;
  to: SweepDestination;
}

export interface SweepPlan {
  network: string;
  asset: string;
  /**
   * The float before the plan (`now`: `held` on chain, plus sweeps on their way, less `owed` to payouts not yet sent),
   * and after every planned sweep to the hot wallet has arrived.
   */
  float: { level: FloatLevel; held: Decimal; owed: Decimal; now: Decimal; after: Decimal; target: Decimal; low: Decimal; high: Decimal };
  sweeps: PlannedSweep[];
  skipped: { address: string; amount: Decimal; reason: SkipReason }[];
}

/**
 * What to sweep of one asset on one network, and where. Largest balances first, so that the float fills in the
 * fewest transactions. A sweep goes to the hot wallet while the float is below its target and the sweep keeps it
 * at or under float_high, or whatever it brings while the float is below float_low; otherwise to the cold address,
 * if the policy names one, or nowhere. A sweep moves an
 * address's whole credited balance: a part left behind would cost a second sweep.
 *
 * `costOf`: the expected cost of sweeping an address, valued in the asset (fees in the native coin at the price of
 * the day, top-ups included); `costFromAmount`: the asset is the network's native coin, whose sweep pays its own
 * fee out of what it moves.
 */
export function planSweeps(
  policy: AssetPolicy,
  holdings: readonly Holding[],
  hot: HotFloat,
  costOf: (holding: Holding) => Decimal,
  costFromAmount: boolean,
): SweepPlan {
  const now = hot.balance.plus(hot.incoming).minus(hot.owed);
  let after = now;
  const sweeps: PlannedSweep[] = [];
  const skipped: SweepPlan['skipped'] = [];
  const ordered = [...holdings].sort((a, b) => b.amount.comparedTo(a.amount) || (a.address < b.address ? -1 : 1));
  for (const holding of ordered) {
    const { address, amount } = holding;
    if (amount.lt(policy.minSweep)) {
      skipped.push({ address, amount, reason: 'below_minimum' });
      continue;
    }
    const cost = costOf(holding);
    if (cost.gt(amount.times(policy.maxCostShare))) {
      skipped.push({ address, amount, reason: 'too_costly' });
      continue;
    }
    const arrives = costFromAmount ? amount.minus(cost) : amount;
    const fits = after.plus(arrives).lte(policy.floatHigh);
    // Below float_low the hot wallet takes a sweep even past float_high: payouts that wait for funds come first.
    if (after.lt(policy.floatTarget) && (fits || after.lt(policy.floatLow))) {
      sweeps.push({ address, amount, arrives, cost, to: 'hot_wallet' });
      after = after.plus(arrives);
    } else if (policy.coldAddress !== null) {
      sweeps.push({ address, amount, arrives, cost, to: 'cold_storage' });
    } else {
      skipped.push({ address, amount, reason: 'float_full' });
    }
  }
  return {
    network: policy.network,
    asset: policy.asset,
    float: { level: floatLevel(policy, now), held: hot.balance, owed: hot.owed, now, after, target: policy.floatTarget, low: policy.floatLow, high: policy.floatHigh },
    sweeps,
    skipped,
  };
}

export function floatLevel(policy: AssetPolicy, float: Decimal): FloatLevel {
  if (float.lt(policy.floatLow)) return 'low';
  if (float.gt(policy.floatHigh)) return 'high';
  return 'ok';
}


/**
 * What sweeping one deposit address is expected to cost, in USD, from the estimates payout quotes use
 * (network-fees.json): one transfer of the asset, plus, for a token on EVM or Tron, the native coin the hot wallet
 * sends the address first to pay for it (gas; energy and bandwidth). On Solana the hot wallet pays the fee itself
 * and closing the token account gives its rent back, which the estimate leaves out. Null: the pair has no estimate.
 */
export function sweepCostUsd(fees: NetworkFees, network: Network, asset: string): Decimal | null {
  const transfer = fees.fee(asset, network.code)?.feeUsd;
  if (transfer === undefined) return null;
  if (asset === network.native_asset || network.address_format === 'solana') return transfer;
  const topUp = fees.fee(network.native_asset, network.code)?.feeUsd;
  return topUp === undefined ? null : transfer.plus(topUp);
}
