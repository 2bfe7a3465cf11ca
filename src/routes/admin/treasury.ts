import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import type { App } from '../../http/route-config.js';
import { errorResponses } from '../../http/schemas.js';
import type { TreasuryNetwork } from '../../use-cases/treasury.js';

const Amount = (description: string) => Type.String({ description: `${description} Decimal string, in the asset's unit.` });

const TreasuryNetworkSchema = Type.Object(
  {
    object: Type.Literal('treasury_network'),
    network: Type.String(),
    sweep_every_seconds: Type.Integer({ description: "How often the network's sweep plan runs." }),
    pause: Type.Union([Type.Object({ reason: Type.String(), paused_at: Type.String({ format: 'date-time' }) }), Type.Null()], {
      description: 'Set while the operator has paused sweeping on the network: no sweep is planned; sweeps already sent are followed to their end.',
    }),
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

const NetworkParams = Type.Object({ network: Type.String({ maxLength: 64, description: 'A network of the treasury policy.' }) });

function shown({ policy, pause }: TreasuryNetwork) {
  return {
    object: 'treasury_network' as const,
    network: policy.network,
    sweep_every_seconds: policy.sweepEverySeconds,
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
