import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import type { App } from '../../http/route-config.js';
import { errorResponses } from '../../http/schemas.js';
import { FLOAT_LEVELS, SKIP_REASONS, SWEEP_DESTINATIONS } from '../../domain/treasury-plan.js';
import type { AssetPlan, TreasuryNetwork } from '../../use-cases/treasury.js';

const Amount = (description: string) => Type.String({ description: `${description} Decimal string, in the asset's unit.` });

const PauseSchema = Type.Union([Type.Object({ reason: Type.String(), paused_at: Type.String({ format: 'date-time' }) }), Type.Null()], {
  description: 'Set while the operator has paused sweeping on the network: no sweep is planned; sweeps already sent are followed to their end.',
});

const TreasuryNetworkSchema = Type.Object(
  {
    object: Type.Literal('treasury_network'),
    network: Type.String(),
    sweep_every_seconds: Type.Integer({ description: "How often the network's sweep plan runs." }),
    max_fee_per_sweep: Type.Union([Amount("The most one sweep may spend on fees, in the network's native coin."), Type.Null()], {
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

const TreasuryPlanSchema = Type.Object(
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
        balance: Amount('What the hot wallet holds now, with sweeps already on their way to it.'),
        after: Amount('What it will hold once the planned sweeps to it have arrived.'),
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

function planShown({ policy, pause, hotWallet, error, plan, depositAddresses, coldBalance }: AssetPlan) {
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
            balance: plan.float.now.toFixed(),
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
  data: ReturnType<typeof planShown>[];
}

const NetworkParams = Type.Object({ network: Type.String({ maxLength: 64, description: 'A network of the treasury policy.' }) });

function shown({ policy, pause }: TreasuryNetwork) {
  return {
    object: 'treasury_network' as const,
    network: policy.network,
    sweep_every_seconds: policy.sweepEverySeconds,
    max_fee_per_sweep: policy.maxFeePerSweep?.toFixed() ?? null,
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

export function adminTreasuryRoutes(app: App, { treasury }: AppContext): void {
  app.get(
    '/treasury/networks',
    {
      schema: {
        summary: 'The networks of the treasury policy, their floats and whether sweeping is paused',
        description: 'What CONNECT_TREASURY_FILE says, per network and asset, and each network\'s pause. See docs/treasury.md.',
        tags: ['operator'],
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(TreasuryNetworkSchema) }), ...errorResponses(401) },
      },
    },
    async () => ({ object: 'list' as const, data: (await treasury.networks()).map(shown) }),
  );

  app.get(
    '/treasury/plan',
    {
      schema: {
        summary: 'What sweeping would do now, per network and asset of the treasury policy: a dry run',
        description:
          'Reads the chain now (deposit addresses, hot wallet, cold address, at one block) and plans the sweeps of each asset by the policy; nothing is sent. Paused networks are planned too. See docs/treasury.md.',
        tags: ['operator'],
        querystring: Type.Object({ network: Type.Optional(Type.String({ maxLength: 64, description: 'Only this network of the treasury policy.' })) }),
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(TreasuryPlanSchema) }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({ object: 'list' as const, data: (await treasury.plan(request.query.network)).map(planShown) }),
  );

  app.post(
    '/treasury/networks/:network/pause',
    {
      schema: {
        summary: 'Pause sweeping on a network',
        description: 'No sweep is planned on the network until it is resumed, in any process. Pausing a paused network keeps its first reason and time.',
        tags: ['operator'],
        params: NetworkParams,
        body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false })),
        response: { 200: TreasuryNetworkSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => shown(await treasury.pause(request.params.network, request.body?.reason)),
  );

  app.post(
    '/treasury/networks/:network/resume',
    {
      schema: {
        summary: 'Resume sweeping on a network',
        description: 'Resuming a network that is not paused changes nothing.',
        tags: ['operator'],
        params: NetworkParams,
        response: { 200: TreasuryNetworkSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => shown(await treasury.resume(request.params.network)),
  );
}
