import { ZERO, type Decimal } from '../domain/money.js';
import type { SkipReason, SweepPlan } from '../domain/treasury-plan.js';
import type { AssetPolicy } from '../domain/treasury-policy.js';
import type { TreasuryPause, TreasurySummary } from '../store/treasury.js';

/** What the deposit addresses of a network hold of one asset, read on chain. */
export interface DepositHoldings {
  /** Addresses holding any of the asset. */
  count: number;
  onChain: Decimal;
  /** On chain and not credited: deposits waiting for confirmations or quarantined, and money no deposit explains. */
  notCredited: Decimal;
}

/**
 * The sweeps one asset of one network would get now, and what they were planned from; `error` says why no plan
 * could be made (the chain could not be read, no hot wallet, no fresh price), and then the chain's figures are null.
 */
export interface AssetPlan {
  policy: AssetPolicy;
  pause: TreasuryPause | null;
  hotWallet: string | null;
  error: string | null;
  plan: SweepPlan | null;
  depositAddresses: DepositHoldings | null;
  /** What the cold address holds (null: not read). */
  coldBalance: Decimal | null;
}

const sum = (amounts: Decimal[]) => amounts.reduce((total, amount) => total.plus(amount), ZERO).toFixed();

/** The summary of a plan that was made; null for one that was not (its `error` says why). */
export function summaryOf({ policy, hotWallet, plan, depositAddresses, coldBalance }: AssetPlan): TreasurySummary | null {
  if (plan === null || depositAddresses === null || hotWallet === null) return null;
  const skipped = (reason: SkipReason) => sum(plan.skipped.filter((s) => s.reason === reason).map((s) => s.amount));
  return {
    hot_wallet: { address: hotWallet, balance: plan.float.held.toFixed(), owed: plan.float.owed.toFixed(), float: plan.float.now.toFixed(), target: plan.float.target.toFixed(), low: plan.float.low.toFixed(), high: plan.float.high.toFixed() },
    cold_storage: policy.coldAddress === null ? null : { address: policy.coldAddress, balance: coldBalance?.toFixed() ?? null },
    deposit_addresses: { count: depositAddresses.count, on_chain: depositAddresses.onChain.toFixed(), not_credited: depositAddresses.notCredited.toFixed() },
    planned: {
      sweeps: plan.sweeps.length,
      to_hot_wallet: sum(plan.sweeps.filter((s) => s.to === 'hot_wallet').map((s) => s.amount)),
      to_cold_storage: sum(plan.sweeps.filter((s) => s.to === 'cold_storage').map((s) => s.amount)),
    },
    left: { below_minimum: skipped('below_minimum'), too_costly: skipped('too_costly'), float_full: skipped('float_full') },
  };
}

/** What the operator is told of a plan the periodic job made, at `warn`: what needs them, and nothing when all is well. */
export interface PlanWarning {
  details: Record<string, string>;
  message: string;
}

/**
 * A plan that could not be made; payouts waiting for funds, with what the plan would sweep to the hot wallet for
 * them (the sweep the service asks for: by hand, until it sends sweeps itself); otherwise a float below its
 * low-water mark.
 */
export function planWarning({ policy, plan, error }: AssetPlan): PlanWarning | null {
  const about = { network: policy.network, asset: policy.asset };
  if (error !== null) return { details: { ...about, error }, message: 'treasury: no sweep plan (GET /admin/v1/treasury/status)' };
  if (plan === null) return null;
  const toHot = plan.sweeps.filter((s) => s.to === 'hot_wallet');
  if (plan.float.owed.gt(plan.float.held)) {
    const sweeps = toHot.reduce((total, s) => total.plus(s.arrives), ZERO);
    return {
      details: { ...about, owed: plan.float.owed.toFixed(), held: plan.float.held.toFixed(), to_hot_wallet: sweeps.toFixed(), sweeps: String(toHot.length) },
      message: sweeps.plus(plan.float.held).gte(plan.float.owed)
        ? 'treasury: payouts wait for funds, and deposit addresses hold enough: sweep them to the hot wallet (connect-payments treasury plan)'
        : 'treasury: payouts wait for funds, and deposit addresses do not hold enough: top up the hot wallet',
    };
  }
  if (plan.float.level === 'low') return { details: { ...about, float: plan.float.now.toFixed(), low: plan.float.low.toFixed() }, message: 'treasury: the hot float is below its low-water mark' };
  return null;
}
