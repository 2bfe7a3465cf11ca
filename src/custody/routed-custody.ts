import { DomainError } from '../domain/errors.js';
import type { CustodyProvider } from './custody-provider.js';

/**
 * Live custody over several chain families (EVM, Tron, Solana), each network served by the one provider that
 * was configured for it: addresses and payout prices of a network come from the same provider.
 */
export function routedCustody(providers: readonly CustodyProvider[]): CustodyProvider {
  const byNetwork = new Map<string, CustodyProvider>();
  for (const provider of providers) {
    if (provider.networks === 'all') throw new Error('routedCustody routes live providers, each serving a set of networks');
    for (const network of provider.networks) {
      if (byNetwork.has(network)) throw new Error(`two live custody providers serve ${network}`);
      byNetwork.set(network, provider);
    }
  }
  const unserved = (network: string) => `Live ${network} is not configured on this deployment.`;
  const providerOf = (network: string) => {
    const provider = byNetwork.get(network);
    if (!provider) throw new DomainError('provider_unavailable', unserved(network));
    return provider;
  };
  return {
    networks: new Set(byNetwork.keys()),
    payoutRefusal: (network) => {
      const provider = byNetwork.get(network);
      return provider ? provider.payoutRefusal(network) : unserved(network);
    },
    createDepositAddress: async (request) => providerOf(request.network).createDepositAddress(request),
    payoutSurcharge: async (network, asset, destination) => (await providerOf(network).payoutSurcharge?.(network, asset, destination)) ?? '0',
    payoutFeeFloor: async (network, asset, destination) => (await providerOf(network).payoutFeeFloor?.(network, asset, destination)) ?? '0',
  };
}
