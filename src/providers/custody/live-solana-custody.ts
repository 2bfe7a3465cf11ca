import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import { allocateOwner } from '../../store/solana-owners.js';
import type { CustodyProvider } from './custody-provider.js';
import { liveCustody } from './live-custody.js';

/**
 * Live custody on Solana networks where the operator holds the keys offline: each deposit address is an owner
 * key taken from the pool the operator imported (ed25519 keys cannot be derived from a public one, so the pool
 * replaces an xpub). The owner is what partners are given; SPL tokens land in its associated token account,
 * which the payer's wallet creates. Payouts are not built yet.
 */
export function liveSolanaCustody(db: Database, networks: ReadonlySet<string>): CustodyProvider {
  return {
    networks,
    payoutRefusal: (network) =>
      networks.has(network)
        ? `Live payouts on ${network} are not built yet: this deployment takes deposits there, and sends no payout.`
        : `Live payouts on ${network} are not configured on this deployment.`,
    advancePayout: (request) => liveCustody.advancePayout(request),
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const owner = await allocateOwner(db, request.network);
      if (!owner) {
        throw new DomainError(
          'provider_unavailable',
          `No deposit address is left for ${request.network}: the operator must import more owner keys ` +
            '(connect-payments solana import-owners, see docs/live-solana.md).',
        );
      }
      return { address: owner.owner, memo: null, providerRef: owner.derivationPath };
    },
  };
}
