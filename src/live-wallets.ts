import { pino } from 'pino';
import { PAYOUT_SWEEP_PREFIX, type Config } from './config.js';
import { liveSolanaCustody } from './custody/live-solana-custody.js';
import { routedCustody } from './custody/routed-custody.js';
import type { CustodyProvider } from './custody/index.js';
import { liveEvmCustody, liveTronCustody } from './custody/xpub-custody.js';
import type { Catalog } from './domain/catalog.js';
import { LOG_REDACTIONS } from './logging.js';
import { ExpiringPayouts } from './outbound/expiring/engine.js';
import { ChainHeights } from './outbound/evm/heights.js';
import { EvmNonceEngine } from './outbound/evm/nonce-engine.js';
import type { AtBoundary, HotWallet } from './outbound/outcomes.js';
import { addressActivity } from './providers/chains/address-activity.js';
import { ViemPayoutDriver } from './providers/chains/evm-payout-driver.js';
import { liveEvmFrom, type LiveEvm } from './providers/chains/live-evm.js';
import { liveTronFrom, type LiveTron } from './providers/chains/live-tron.js';
import { liveSolanaFrom, type LiveSolana } from './providers/chains/solana/live-solana.js';
import { SolanaDriver, solanaSignerFrom } from './providers/chains/solana/payout-driver.js';
import { TronDriver } from './providers/chains/tron/payout-driver.js';
import type { Database } from './store/database.js';

/** What the operator's live settings build: custody of each configured family, and the hot wallet of each network that pays out. */
export interface LiveWallets {
  /** Live custody over every configured family; null when none is configured. */
  custody: CustodyProvider | null;
  /** The hot wallet of each network with a payout signer. */
  hotWallets: ReadonlyMap<string, HotWallet>;
  liveEvm: LiveEvm | null;
  liveSolana: LiveSolana | null;
  liveTron: LiveTron | null;
}

/**
 * Builds each family's live custody (deposit addresses) and, where a payout signer is configured, its hot wallet:
 * the family's outbound engine (EVM nonces, or expiring transactions on Tron and Solana) over its chain driver.
 */
export async function liveWallets(config: Config, db: Database, catalog: Catalog, atBoundary?: AtBoundary): Promise<LiveWallets> {
  for (const network of Object.keys(config.livePayouts.sweepSecondsByNetwork)) {
    if (!catalog.network(network)) throw new Error(`${PAYOUT_SWEEP_PREFIX}${network.toUpperCase().replaceAll('-', '_')} names ${network}, which is not a network of the catalog`);
  }
  const hotWallets = new Map<string, HotWallet>();
  const serve = (networks: Iterable<string>, hotWallet: HotWallet) => {
    for (const network of networks) hotWallets.set(network, hotWallet);
  };
  // Where custody reports a used address it skipped (a restored backup, a copy of the database).
  const custodyLog = pino({ level: config.logLevel, redact: LOG_REDACTIONS });

  const liveEvm = liveEvmFrom(config.evm, catalog);
  if (liveEvm?.signer) {
    const driver = new ViemPayoutDriver(catalog, liveEvm.rpcUrls, liveEvm.signer, config.evm.rpcTimeoutMs);
    serve(
      liveEvm.rpcUrls.keys(),
      new EvmNonceEngine(db, catalog, driver, new ChainHeights(db, driver), {
        rebroadcastAfterSeconds: config.evm.rebroadcastSeconds,
        gapFillAfterSeconds: config.evm.gapFillSeconds,
        notSentConfirmSeconds: config.evm.notSentConfirmSeconds,
        atBoundary,
      }),
    );
  }

  const liveSolana = liveSolanaFrom(config.solana, catalog);
  const solanaSigner = liveSolana && (await solanaSignerFrom(config.solana));
  const solanaDriver = solanaSigner ? new SolanaDriver(catalog, liveSolana!.rpcUrls, solanaSigner, config.solana.rpcTimeoutMs) : null;
  if (solanaDriver) {
    const engine = new ExpiringPayouts(db, catalog, solanaDriver, {
      maxSignings: config.solana.payoutMaxSignings,
      expiryConfirmSeconds: config.solana.payoutExpiryConfirmSeconds,
      atBoundary,
    });
    serve(liveSolana!.rpcUrls.keys(), engine);
  }

  const liveTron = liveTronFrom(config.tron, config.tronPayouts, catalog);
  const tronDriver = liveTron?.signer ? new TronDriver(catalog, liveTron.apiUrls, liveTron.signer, { ...config.tronPayouts, headers: liveTron.headers }) : null;
  if (tronDriver) serve(liveTron!.apiUrls.keys(), new ExpiringPayouts(db, catalog, tronDriver, { ...config.tronPayouts, atBoundary }));

  const providers = [
    liveEvm &&
      liveEvmCustody(db, liveEvm.xpub, new Set(liveEvm.rpcUrls.keys()), liveEvm.signer !== null, {
        used: addressActivity({ rpcUrls: liveEvm.rpcUrls, catalog, family: 'evm' }),
        log: custodyLog,
      }),
    liveSolana && liveSolanaCustody(db, new Set(liveSolana.rpcUrls.keys()), solanaDriver),
    liveTron &&
      liveTronCustody(db, liveTron.xpub, new Set(liveTron.rpcUrls.keys()), tronDriver, {
        used: addressActivity({ rpcUrls: liveTron.rpcUrls, catalog, family: 'tron', headers: liveTron.headers }),
        log: custodyLog,
      }),
  ].filter((p) => p !== null);
  return {
    custody: providers.length > 0 ? routedCustody(providers) : null,
    hotWallets,
    liveEvm,
    liveSolana: liveSolana && { ...liveSolana, payoutSigner: solanaSigner ? solanaSigner.address : null },
    liveTron,
  };
}
