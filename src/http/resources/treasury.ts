import { Type } from 'typebox';
import { FLOAT_LEVELS, SKIP_REASONS, SWEEP_DESTINATIONS } from '../../domain/treasury-plan.js';
import type { AssetPlan, TreasuryNetwork, TreasuryStatus } from '../../use-cases/treasury.js';
import { iso, isoOrNull } from '../schemas.js';

const Amount = (description: string) => Type.String({ description: `${description} Decimal string, in the asset's unit.` });

const PauseSchema = Type.Union([Type.Object({ reason: Type.String(), paused_at: Type.String({ format: 'date-time' }) }), Type.Null()], {
  description: 'Set while the operator has paused sweeping on the network: no sweep is planned; sweeps already sent are followed to their end.',
});

export const TreasuryNetworkSchema = Type.Object(
  {
    object: Type.Literal('treasury_network'),
    network: Type.String(),
    sweep_every_seconds: Type.Integer({ description: "How often the network's sweep plan runs." }),
    max_fee_per_sweep: Type.Union([Amount("The most one sweep may spend on fees, in the network's native coin."), Type.Null()], {
      description: 'Null: the signer signs no sweep or top-up on the network.',
    }),
    max_fees_per_day: Type.Union([Amount("The most the network's sweeps may spend on fees and top-ups in a UTC day, in its native coin."), Type.Null()], {
      description: 'Null: the signer signs no sweep or top-up on the network.',
    }),
    pause: PauseSchema,
    assets: Type.Array(
      Type.Object({
        asset: Type.String(),
        float_target: Amount('What the hot wallet should hold.'),
        float_low: Amount('Below this the float is low.'),
        float_high: Amount('No sweep takes the hot wallet above this.'),
        cold_address: Type.Union([Type.String(), Type.Null()], { description: 'Watch-only address that receives what the float does not need; null: none.' }),
        min_sweep: Amount('A deposit address holding less is not swept.'),
        max_cost_share: Type.String({ description: 'A sweep costing more than this share of what it moves is not made (0.01 = 1%).' }),
      }),
    ),
  },
  { title: 'TreasuryNetwork' },
);

export const TreasuryPlanSchema = Type.Object(
  {
    object: Type.Literal('treasury_plan'),
    network: Type.String(),
    asset: Type.String(),
    pause: PauseSchema,
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why no plan could be made (the chain could not be read, no hot wallet, no fresh price); the chain\'s figures are then null.',
    }),
    hot_wallet: Type.Union([
      Type.Object({
        address: Type.String(),
        level: Type.Enum(FLOAT_LEVELS, { description: 'low: below float_low; high: above float_high; ok: between.' }),
        balance: Amount('What the hot wallet holds on chain.'),
        owed: Amount('What live payouts not sent yet (pending, among them those waiting for funds) will take from it.'),
        float: Amount('Its float: the balance, with sweeps already on their way to it, less what is owed. The level and the plan go by this.'),
        after: Amount('The float once the planned sweeps to it have arrived.'),
        target: Amount('The float target.'),
        low: Amount('The low-water mark.'),
        high: Amount('The high-water mark.'),
      }),
      Type.Null(),
    ]),
    cold_storage: Type.Union([Type.Object({ address: Type.String(), balance: Type.Union([Amount('What the cold address holds.'), Type.Null()]) }), Type.Null()], {
      description: 'The watch-only cold address of the policy; null: none.',
    }),
    deposit_addresses: Type.Union([
      Type.Object({
        count: Type.Integer({ description: 'Deposit addresses holding any of the asset.' }),
        on_chain: Amount('What they hold.'),
        not_credited: Amount('What they hold beyond what was credited: deposits waiting for confirmations or quarantined, and money no deposit explains. Never swept.'),
      }),
      Type.Null(),
    ]),
    sweeps: Type.Array(
      Type.Object({
        address: Type.String(),
        amount: Amount('What leaves the deposit address.'),
        arrives: Amount('What arrives: the amount, less the cost when the asset is the native coin that pays it.'),
        cost: Amount('The expected cost of the sweep (network-fees.json\'s estimates), valued in the asset.'),
        to: Type.Enum(SWEEP_DESTINATIONS),
      }),
      { description: 'Largest balances first.' },
    ),
    skipped: Type.Array(
      Type.Object({
        address: Type.String(),
        amount: Amount('What the address holds that could be swept.'),
        reason: Type.Enum(SKIP_REASONS, {
          description: 'below_minimum: less than min_sweep; too_costly: costs more than max_cost_share of it; float_full: the hot wallet needs none and there is no cold address.',
        }),
      }),
    ),
  },
  { title: 'TreasuryPlan' },
);

export function treasuryPlanShown({ policy, pause, hotWallet, error, plan, depositAddresses, coldBalance }: AssetPlan) {
  return {
    object: 'treasury_plan' as const,
    network: policy.network,
    asset: policy.asset,
    pause: pause && { reason: pause.reason, paused_at: pause.paused_at.toISOString() },
    error,
    hot_wallet:
      plan && hotWallet !== null
        ? {
            address: hotWallet,
            level: plan.float.level,
            balance: plan.float.held.toFixed(),
            owed: plan.float.owed.toFixed(),
            float: plan.float.now.toFixed(),
            after: plan.float.after.toFixed(),
            target: plan.float.target.toFixed(),
            low: plan.float.low.toFixed(),
            high: plan.float.high.toFixed(),
          }
        : null,
    cold_storage: policy.coldAddress === null ? null : { address: policy.coldAddress, balance: coldBalance?.toFixed() ?? null },
    deposit_addresses: depositAddresses && {
      count: depositAddresses.count,
      on_chain: depositAddresses.onChain.toFixed(),
      not_credited: depositAddresses.notCredited.toFixed(),
    },
    sweeps: (plan?.sweeps ?? []).map((s) => ({ address: s.address, amount: s.amount.toFixed(), arrives: s.arrives.toFixed(), cost: s.cost.toFixed(), to: s.to })),
    skipped: (plan?.skipped ?? []).map((s) => ({ address: s.address, amount: s.amount.toFixed(), reason: s.reason })),
  };
}

/** The answer of GET /admin/v1/treasury/plan, as the CLI reads it. */
export interface TreasuryPlanAnswer {
  object: 'list';
  data: ReturnType<typeof treasuryPlanShown>[];
}

export function treasuryNetworkShown({ policy, pause }: TreasuryNetwork) {
  return {
    object: 'treasury_network' as const,
    network: policy.network,
    sweep_every_seconds: policy.sweepEverySeconds,
    max_fee_per_sweep: policy.maxFeePerSweep?.toFixed() ?? null,
    max_fees_per_day: policy.maxFeesPerDay?.toFixed() ?? null,
    pause: pause && { reason: pause.reason, paused_at: pause.paused_at.toISOString() },
    assets: [...policy.assets.values()].map((a) => ({
      asset: a.asset,
      float_target: a.floatTarget.toFixed(),
      float_low: a.floatLow.toFixed(),
      float_high: a.floatHigh.toFixed(),
      cold_address: a.coldAddress,
      min_sweep: a.minSweep.toFixed(),
      max_cost_share: a.maxCostShare.toFixed(),
    })),
  };
}


const SummarySchema = Type.Object(
  {
    hot_wallet: Type.Object({
      address: Type.String(),
      balance: Amount('What it held on chain.'),
      owed: Amount('What live payouts not sent yet would take from it.'),
      float: Amount('The balance less what is owed (with sweeps on their way).'),
      target: Amount('The float target.'),
      low: Amount('The low-water mark.'),
      high: Amount('The high-water mark.'),
    }),
    cold_storage: Type.Union([Type.Object({ address: Type.String(), balance: Type.Union([Amount('What it held.'), Type.Null()]) }), Type.Null()]),
    deposit_addresses: Type.Object({
      count: Type.Integer({ description: 'Deposit addresses holding any of the asset.' }),
      on_chain: Amount('What they held.'),
      not_credited: Amount('What they held beyond what was credited; never swept.'),
    }),
    planned: Type.Object({
      sweeps: Type.Integer(),
      to_hot_wallet: Amount('What the planned sweeps move to the hot wallet.'),
      to_cold_storage: Amount('What they move to the cold address.'),
    }),
    left: Type.Object(
      { below_minimum: Amount('Left: below min_sweep.'), too_costly: Amount('Left: costing more than max_cost_share.'), float_full: Amount('Left: the hot wallet needs none, no cold address.') },
      { description: 'What the plan leaves on deposit addresses, by why.' },
    ),
  },
  { description: 'The latest plan that was made, summed; null: none yet.' },
);

export const TreasuryStatusSchema = Type.Object(
  {
    object: Type.Literal('treasury_status'),
    network: Type.String(),
    asset: Type.String(),
    pause: PauseSchema,
    float_level: Type.Union([Type.Enum(FLOAT_LEVELS), Type.Null()], { description: 'Of the latest plan made: low, ok or high; null: none yet.' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the latest attempt made no plan; null: it made one.' }),
    summary: Type.Union([SummarySchema, Type.Null()]),
    checked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The latest attempt; null: never planned.' }),
    planned_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The latest plan made (kept while attempts fail).' }),
  },
  { title: 'TreasuryStatus' },
);

export function treasuryStatusShown({ policy, pause, latest }: TreasuryStatus) {
  return {
    object: 'treasury_status' as const,
    network: policy.network,
    asset: policy.asset,
    pause: pause && { reason: pause.reason, paused_at: iso(pause.paused_at) },
    float_level: latest?.float_level ?? null,
    error: latest?.error ?? null,
    summary: latest?.summary ?? null,
    checked_at: isoOrNull(latest?.checked_at ?? null),
    planned_at: isoOrNull(latest?.planned_at ?? null),
  };
}

/** The answer of GET /admin/v1/treasury/status, as the CLI reads it. */
export interface TreasuryStatusAnswer {
  object: 'list';
  data: ReturnType<typeof treasuryStatusShown>[];
}
