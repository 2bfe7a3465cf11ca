import { Type } from 'typebox';
import { AssetSchema, FiatCurrencySchema, NetworkSchema } from '../domain/catalog.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { errorResponses, PARTNER_ERRORS } from '../http/schemas.js';

const Capabilities = Type.Object({
  object: Type.Literal('capabilities'),
  livemode: Type.Boolean(),
  assets: Type.Array(AssetSchema, { description: 'Assets in catalog order; each lists its networks in priority order.' }),
  networks: Type.Array(NetworkSchema),
  fiat_currencies: Type.Array(FiatCurrencySchema, { description: 'Currencies balances are valued in.' }),
});

export function capabilitiesRoutes(app: App, { catalog }: AppContext): void {
  app.get(
    '/capabilities',
    {
      schema: {
        summary: 'Assets, networks and fiat valuations this organization can use',
        description: 'Pairs the operator disabled for the organization are absent; for live keys, so are pairs on networks without a configured chain watcher (docs/live-evm.md). Needs no scope.',
        tags: ['capabilities'],
        response: { 200: Capabilities, ...errorResponses(...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const caller = request.caller!;
      const assets = catalog.forOrganization(caller.organizationSettings, caller.mode);
      const used = new Set(assets.flatMap((a) => a.networks.map((n) => n.network)));
      return {
        object: 'capabilities' as const,
        livemode: caller.mode === 'live',
        assets,
        networks: catalog.data.networks.filter((n) => used.has(n.code)),
        fiat_currencies: catalog.data.fiat_currencies,
      };
    },
  );
}
