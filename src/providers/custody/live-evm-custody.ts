import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import { allocateDerivedAddress } from '../../store/derivation.js';
import { derivationPath, type EvmXpub } from '../chains/evm-xpub.js';
import type { CustodyProvider } from './custody-provider.js';
import type { EvmPayouts } from './evm-payouts.js';
import { liveCustody } from './live-custody.js';

/**
 * Live custody on EVM networks where the operator holds the keys: deposit addresses are derived from the
 * operator's xpub at the next index (no private key on the API host); payouts are signed by the hot wallet's
 * signer, when one is configured. `networks` are the EVM networks with a chain watcher;
 * the catalog offers live keys no other.
 */
export function liveEvmCustody(db: Database, xpub: EvmXpub, networks: ReadonlySet<string>, payouts: EvmPayouts | null): CustodyProvider {
  return {
    networks,
    payoutsEnabled: payouts !== null,
    advancePayout: (request) => (payouts ? payouts.advance(request) : liveCustody.advancePayout(request)),
    maintain: payouts ? async (network) => void (await payouts.fillGaps(network)) : undefined,
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const { index, address } = await allocateDerivedAddress(db, 'evm', request.network, (i) => xpub.address(i));
      return { address, memo: null, providerRef: derivationPath(index) };
    },
  };
}
