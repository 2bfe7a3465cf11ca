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
    payoutRefusal: (network) =>
      !networks.has(network)
        ? `Live payouts on ${network} are not configured on this deployment.`
        : payouts
          ? null
          : // The settings are named (src/config.ts): the partner forwards this to the operator, who must act on it.
            'Live payouts need a payout signer, and none is configured on this deployment: the operator sets ' +
            'CONNECT_EVM_SIGNER_KEY, CONNECT_EVM_SIGNER_KEY_FILE or CONNECT_EVM_SIGNER_URL (with CONNECT_EVM_SIGNER_ADDRESS).',
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
