import type { CustodyProvider } from './custody-provider.js';
import { liveCustody } from './live-custody.js';

/**
 * Several live providers as one, each request going to the provider that serves its network (EVM and Solana
 * custody side by side); a network none serves is refused as `liveCustody` refuses everything. Payouts are
 * enabled when one provider sends them, so a payout on a network whose provider sends none must still end:
 * nothing was signed for it, which proves it never left and releases its funds.
 */
export function custodyByNetwork(providers: readonly CustodyProvider[]): CustodyProvider {
  if (providers.length === 1) return providers[0]!;
  const servedBy = new Map<string, CustodyProvider>();
  for (const provider of providers) {
    if (provider.networks === 'all') throw new Error('custodyByNetwork combines providers of named networks only');
    for (const network of provider.networks) servedBy.set(network, provider);
  }
  const routed = (network: string) => servedBy.get(network) ?? liveCustody;
  return {
    networks: new Set(servedBy.keys()),
    payoutsEnabled: providers.some((p) => p.payoutsEnabled),
    async advancePayout(request) {
      const provider = routed(request.network);
      if (provider.payoutsEnabled) return provider.advancePayout(request);
      return { kind: 'not_sent', proof: 'nothing_signed', reason: `live payouts on ${request.network} are not served by this deployment; nothing was signed` };
    },
    maintain: async (network) => routed(network).maintain?.(network),
    createDepositAddress: (request) => routed(request.network).createDepositAddress(request),
  };
}
