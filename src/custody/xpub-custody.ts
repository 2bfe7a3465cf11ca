import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '../domain/errors.js';
import type { Database } from '../store/database.js';
import { allocateDerivedAddress, nextDerivationIndex, skipPastUsed, type KeyFamily } from '../store/derivation.js';
import { derivationPath } from '../providers/chains/account-xpub.js';
import type { AddressUsed } from '../providers/chains/address-activity.js';
import type { EvmXpub } from '../providers/chains/evm-xpub.js';
import type { TronDriver } from '../providers/chains/tron/payout-driver.js';
import type { TronXpub } from '../providers/chains/tron/xpub.js';
import { refusalOf, type CustodyProvider } from './custody-provider.js';

/** A family's hot wallet as quotes see it (its payouts go out through src/outbound/): what the chain charges beyond the fee table. */
interface HotWalletPrices {
  /** What a payout to this destination costs beyond the fee table (CustodyProvider.payoutSurcharge). */
  surcharge?(network: string, asset: string, destination: string): Promise<string>;
  /** What the chain charges for a payout to this destination now (CustodyProvider.payoutFeeFloor). */
  feeFloor?(network: string, asset: string, destination: string): Promise<string>;
}

interface XpubCustody {
  /** The derivation counter: one per xpub, so no index is ever handed out twice. */
  family: KeyFamily;
  xpub: EvmXpub | TronXpub;
  /** The networks with a chain watcher: the catalog offers live keys no other. */
  networks: ReadonlySet<string>;
  /** Null: no payout signer is configured, and payouts are refused. */
  hotWallet: HotWalletPrices | null;
  /** The settings that configure the signer, as a refusal names them. */
  signerSettings: string;
  /** Whether the chain shows an address as used: the check that this database does not hand out used ones. */
  used: AddressUsed;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

/** Indexes read ahead of the next one for chain activity (BIP-44's gap limit: wallets stop after 20 unused). */
export const XPUB_GAP = 20;

/**
 * Moves the family's next index past every address the chain shows as used within XPUB_GAP of it, until a whole
 * gap is unused: what a restored older backup, or a copy of this database, would otherwise hand out again. Run
 * once per process, before its first address. A node that cannot be read is logged and the address handed out
 * (the claim is what guards against another database; an outage of one network's provider must not stop every
 * live intent): the check runs again before the next address, until it completes once.
 */
async function skipUsedAhead(db: Database, { family, xpub, used, log }: Pick<XpubCustody, 'family' | 'xpub' | 'used' | 'log'>): Promise<boolean> {
  try {
    for (;;) {
      const next = await nextDerivationIndex(db, family);
      const window = Array.from({ length: XPUB_GAP }, (_, i) => next + i);
      const seen = await Promise.all(window.map((index) => used(xpub.address(index))));
      const last = window.findLast((_, i) => seen[i]);
      if (last === undefined) return true;
      const moved = await skipPastUsed(db, family, last);
      log.warn(
        { family, usedIndex: last, nextIndex: moved },
        `${family} deposit address ${derivationPath(last)} already has activity on chain, though this database had not handed it out: ` +
          'another database (a newer one this backup was restored from, a copy) used this xpub. The next index moves past it; see docs/live-evm.md, "One xpub, one database".',
      );
    }
  } catch (error) {
    log.warn(
      { family, error: error instanceof Error ? error.message : String(error) },
      `${family} deposit addresses: the chain could not be checked for addresses another database used; checked again before the next address`,
    );
    return false;
  }
}

/**
 * Live custody where the operator holds the keys of a family whose addresses derive from an xpub (EVM, Tron):
 * deposit address i is the xpub's external-chain address i, taken from the family's counter (no private key on the
 * API host); payouts go out from the hot wallet when one is configured, and are refused before anything is
 * reserved when not.
 */
function xpubCustody(db: Database, custody: XpubCustody): CustodyProvider {
  const { family, xpub, networks, hotWallet, signerSettings } = custody;
  let checked: Promise<boolean> | null = null;
  return {
    networks,
    // The settings are named (src/config.ts): the partner forwards this to the operator, who must act on it.
    payoutRefusal: refusalOf(
      networks,
      hotWallet !== null,
      (network) => `Live payouts on ${network} need a payout signer, and none is configured on this deployment: the operator sets ${signerSettings}.`,
    ),
    payoutSurcharge: hotWallet?.surcharge && ((network, asset, destination) => hotWallet.surcharge!(network, asset, destination)),
    payoutFeeFloor: hotWallet?.feeFloor && ((network, asset, destination) => hotWallet.feeFloor!(network, asset, destination)),
    async createDepositAddress(request) {
      if (!networks.has(request.network)) {
        throw new DomainError('provider_unavailable', `Live deposits on ${request.network} are not configured on this deployment.`);
      }
      const check = (checked ??= skipUsedAhead(db, custody));
      if (!(await check) && checked === check) checked = null;
      const { index, address } = await allocateDerivedAddress(db, { family, fingerprint: xpub.fingerprint, derive: (i) => xpub.address(i) }, request.network);
      return { address, memo: null, providerRef: derivationPath(index) };
    },
  };
}

/** What both families' custody is built with besides the xpub, networks and hot wallet. */
export type ChainCheck = Pick<XpubCustody, 'used' | 'log'>;

/** `payouts`: whether a payout signer is configured (the hot wallet's payouts go out through src/outbound/evm/). */
export const liveEvmCustody = (db: Database, xpub: EvmXpub, networks: ReadonlySet<string>, payouts: boolean, check: ChainCheck): CustodyProvider =>
  xpubCustody(db, {
    ...check,
    family: 'evm',
    xpub,
    networks,
    hotWallet: payouts ? {} : null,
    signerSettings: 'CONNECT_EVM_SIGNER_KEY, CONNECT_EVM_SIGNER_KEY_FILE or CONNECT_EVM_SIGNER_URL (with CONNECT_EVM_SIGNER_ADDRESS)',
  });

/** `driver`: the hot wallet's Tron driver when a payout signer is configured (its payouts go out through src/outbound/expiring/). */
export const liveTronCustody = (db: Database, xpub: TronXpub, networks: ReadonlySet<string>, driver: TronDriver | null, check: ChainCheck): CustodyProvider =>
  xpubCustody(db, {
    ...check,
    family: 'tron',
    xpub,
    networks,
    hotWallet: driver && {
      // A first transfer to an address costs more than the table's fee: priced per destination at the quote.
      surcharge: (network, asset, destination) => driver.newRecipientCost(network, asset, destination),
      // And the table's USD figure may be below what the chain charges at today's energy and TRX prices.
      feeFloor: (network, asset, destination) => driver.transferCost(network, asset, destination),
    },
    signerSettings: 'CONNECT_TRON_SIGNER_KEY or CONNECT_TRON_SIGNER_KEY_FILE',
  });
