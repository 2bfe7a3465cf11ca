import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import { allocateDerivedAddress } from '../../store/derivation.js';
import { derivationPath, type EvmXpub } from '../chains/evm-xpub.js';
import type { CustodyProvider } from './custody-provider.js';
import { liveCustody } from './live-custody.js';

/**
 * Live custody on EVM networks where the operator holds the keys: deposit addresses are derived from the
 * operator's xpub at the next index (no private key on the API host). `networks` are the EVM networks with a chain watcher;
 * the catalog offers live keys no other.
 */
export function liveEvmCustody(db: Database, xpub: EvmXpub, networks: ReadonlySet<string>): CustodyProvider {
  return {
    networks,
    payoutsEnabled: liveCustody.payoutsEnabled,
    sendPayout: (request) => liveCustody.sendPayout(request),
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const { index, address } = await allocateDerivedAddress(db, 'evm', request.network, (i) => xpub.address(i));
      return { address, memo: null, providerRef: derivationPath(index) };
    },
  };
}
