import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import { allocateDerivedAddress, type KeyFamily } from '../../store/derivation.js';
import { derivationPath } from '../chains/account-xpub.js';
import type { EvmXpub } from '../chains/evm-xpub.js';
import type { TronXpub } from '../chains/tron/xpub.js';
import type { CustodyProvider, PayoutOutcome, PayoutRequest } from './custody-provider.js';
import type { EvmPayouts } from './evm-payouts.js';
import { liveCustody } from './live-custody.js';
import type { tronPayouts } from './tron-payouts.js';

/** What sends a family's payouts from its hot wallet, and looks after it between payouts. */
interface HotWallet {
  advance(request: PayoutRequest): Promise<PayoutOutcome>;
  maintain?(network: string): Promise<void>;
  /** What a payout to this destination costs beyond the fee table (CustodyProvider.payoutSurcharge). */
  surcharge?(network: string, asset: string, destination: string): Promise<string>;
}

interface XpubCustody {
  /** The derivation counter: one per xpub, so no index is ever handed out twice. */
  family: KeyFamily;
  xpub: EvmXpub | TronXpub;
  /** The networks with a chain watcher: the catalog offers live keys no other. */
  networks: ReadonlySet<string>;
  /** Null: no payout signer is configured, and payouts are refused. */
  hotWallet: HotWallet | null;
  /** The settings that configure the signer, as a refusal names them. */
  signerSettings: string;
}

/**
 * Live custody where the operator holds the keys of a family whose addresses derive from an xpub (EVM, Tron):
 * deposit address i is the xpub's external-chain address i, taken from the family's counter (no private key on the
 * API host); payouts go out from the hot wallet when one is configured, and are refused before anything is
 * reserved when not.
 */
function xpubCustody(db: Database, { family, xpub, networks, hotWallet, signerSettings }: XpubCustody): CustodyProvider {
  return {
    networks,
    payoutRefusal: (network) =>
      !networks.has(network)
        ? `Live payouts on ${network} are not configured on this deployment.`
        : hotWallet
          ? null
          : // The settings are named (src/config.ts): the partner forwards this to the operator, who must act on it.
            `Live payouts on ${network} need a payout signer, and none is configured on this deployment: the operator sets ${signerSettings}.`,
    advancePayout: (request) => (hotWallet ? hotWallet.advance(request) : liveCustody.advancePayout(request)),
    maintain: hotWallet?.maintain && ((network) => hotWallet.maintain!(network)),
    payoutSurcharge: hotWallet?.surcharge && ((network, asset, destination) => hotWallet.surcharge!(network, asset, destination)),
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const { index, address } = await allocateDerivedAddress(db, family, request.network, (i) => xpub.address(i));
      return { address, memo: null, providerRef: derivationPath(index) };
    },
  };
}

export const liveEvmCustody = (db: Database, xpub: EvmXpub, networks: ReadonlySet<string>, payouts: EvmPayouts | null): CustodyProvider =>
  xpubCustody(db, {
    family: 'evm',
    xpub,
    networks,
    // Nonce gaps left by payouts refused after taking a nonce are filled between payouts.
    hotWallet: payouts && { advance: (request) => payouts.advance(request), maintain: async (network) => void (await payouts.fillGaps(network)) },
    signerSettings: 'CONNECT_EVM_SIGNER_KEY, CONNECT_EVM_SIGNER_KEY_FILE or CONNECT_EVM_SIGNER_URL (with CONNECT_EVM_SIGNER_ADDRESS)',
  });

export const liveTronCustody = (db: Database, xpub: TronXpub, networks: ReadonlySet<string>, payouts: ReturnType<typeof tronPayouts> | null): CustodyProvider =>
  xpubCustody(db, {
    family: 'tron',
    xpub,
    networks,
    hotWallet: payouts && {
      advance: (request) => payouts.engine.advance(request),
      // A first transfer to an address costs more than the table's fee: priced per destination at the quote.
      surcharge: (network, asset, destination) => payouts.driver.newRecipientCost(network, asset, destination),
    },
    signerSettings: 'CONNECT_TRON_SIGNER_KEY or CONNECT_TRON_SIGNER_KEY_FILE',
  });
