import { DomainError } from '../domain/errors.js';
import type { SolanaDriver } from '../providers/chains/solana/payout-driver.js';
import type { Database } from '../store/database.js';
import { allocateOwner } from '../store/solana-owners.js';
import { refusalOf, type CustodyProvider } from './custody-provider.js';

/**
 * Live custody on Solana networks where the operator holds the keys offline: each deposit address is an owner
 * key taken from the pool the operator imported (ed25519 keys cannot be derived from a public one, so the pool
 * replaces an xpub). The owner is what partners are given; SPL tokens land in its associated token account,
 * which the payer's wallet creates. Payouts go out from the hot wallet (the expiring-payout engine over the Solana
 * driver, src/outbound/expiring/); without one (no CONNECT_SOLANA_SIGNER_KEY_FILE) they are refused, and `driver` is null.
 */
export function liveSolanaCustody(db: Database, networks: ReadonlySet<string>, driver: SolanaDriver | null = null): CustodyProvider {
  return {
    networks,
    payoutRefusal: refusalOf(
      networks,
      driver !== null,
      (network) =>
        `Live payouts on ${network} need a hot wallet: set CONNECT_SOLANA_SIGNER_KEY_FILE (see docs/live-solana.md); this deployment takes deposits there, and sends no payout.`,
    ),
    payoutSurcharge: async (network, asset, destination) => (driver ? driver.accountCreationCost(network, asset, destination) : '0'),
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
