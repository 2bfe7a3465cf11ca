import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import { allocateDerivedAddress } from '../../store/derivation.js';
import { derivationPath } from '../chains/account-xpub.js';
import type { TronXpub } from '../chains/tron/xpub.js';
import type { CustodyProvider } from './custody-provider.js';
import { liveCustody } from './live-custody.js';

/**
 * Live deposits on Tron where the operator holds the keys: addresses are derived from the operator's Tron xpub
 * at the next index of the `tron` counter (an EVM index never shares it: the two xpubs are different keys).
 * Payouts are not served yet: refused, naming why, before anything is reserved.
 */
export function liveTronCustody(db: Database, xpub: TronXpub, networks: ReadonlySet<string>): CustodyProvider {
  return {
    networks,
    payoutRefusal: (network) =>
      networks.has(network) ? `Live payouts on ${network} are not served yet: this deployment takes live Tron deposits only.` : `Live payouts on ${network} are not configured on this deployment.`,
    advancePayout: (request) => liveCustody.advancePayout(request),
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const { index, address } = await allocateDerivedAddress(db, 'tron', request.network, (i) => xpub.address(i));
      return { address, memo: null, providerRef: derivationPath(index) };
    },
  };
}
