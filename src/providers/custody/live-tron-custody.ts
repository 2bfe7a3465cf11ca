import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import { allocateDerivedAddress } from '../../store/derivation.js';
import { derivationPath } from '../chains/account-xpub.js';
import type { TronXpub } from '../chains/tron/xpub.js';
import type { CustodyProvider } from './custody-provider.js';
import type { ExpiringPayouts } from './expiring-payouts.js';
import { liveCustody } from './live-custody.js';

/**
 * Live deposits on Tron where the operator holds the keys: addresses are derived from the operator's Tron xpub
 * at the next index of the `tron` counter (an EVM index never shares it: the two xpubs are different keys).
 * Payouts go out from the hot wallet through the expiring-payout engine when a signer is configured; without one
 * they are refused, naming the settings, before anything is reserved.
 */
export function liveTronCustody(db: Database, xpub: TronXpub, networks: ReadonlySet<string>, payouts: ExpiringPayouts | null): CustodyProvider {
  return {
    networks,
    payoutRefusal: (network) =>
      !networks.has(network)
        ? `Live payouts on ${network} are not configured on this deployment.`
        : payouts
          ? null
          : // The settings are named (src/config.ts): the partner forwards this to the operator, who must act on it.
            `Live payouts on ${network} need a payout signer, and none is configured on this deployment: the operator sets ` +
            'CONNECT_TRON_SIGNER_KEY or CONNECT_TRON_SIGNER_KEY_FILE.',
    advancePayout: (request) => (payouts ? payouts.advance(request) : liveCustody.advancePayout(request)),
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const { index, address } = await allocateDerivedAddress(db, 'tron', request.network, (i) => xpub.address(i));
      return { address, memo: null, providerRef: derivationPath(index) };
    },
  };
}
