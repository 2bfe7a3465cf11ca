import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import type { App } from '../../http/route-config.js';
import { errorResponses } from '../../http/schemas.js';
import {
  TreasuryNetworkSchema,
  treasuryNetworkShown,
  TreasuryPlanSchema,
  treasuryPlanShown,
  TreasuryStatusSchema,
  treasuryStatusShown,
} from '../../http/resources/treasury.js';

const NetworkParams = Type.Object({ network: Type.String({ maxLength: 64, description: 'A network of the treasury policy.' }) });

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
    async () => ({ object: 'list' as const, data: (await treasury.networks()).map(treasuryNetworkShown) }),
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
    async (request) => ({ object: 'list' as const, data: (await treasury.plan(request.query.network)).map(treasuryPlanShown) }),
  );

  app.get(
    '/treasury/status',
    {
      schema: {
        summary: 'Where the treasury stands, per network and asset of the policy: the latest plan, summed',
        description:
          'What the periodic plan (every sweep_every_seconds of the network, in a process with workers) or the latest `treasury plan` found: the hot float against its marks, what the deposit addresses hold, what would be swept and what is left. Reads nothing on chain. See docs/treasury.md.',
        tags: ['operator'],
        querystring: Type.Object({ network: Type.Optional(Type.String({ maxLength: 64, description: 'Only this network of the treasury policy.' })) }),
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(TreasuryStatusSchema) }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({ object: 'list' as const, data: (await treasury.status(request.query.network)).map(treasuryStatusShown) }),
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
    async (request) => treasuryNetworkShown(await treasury.pause(request.params.network, request.body?.reason)),
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
    async (request) => treasuryNetworkShown(await treasury.resume(request.params.network)),
  );
}
