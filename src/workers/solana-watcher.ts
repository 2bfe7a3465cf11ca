import { address as toAddress } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import type { FastifyBaseLogger } from 'fastify';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { Decimal } from '../domain/money.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SolanaChainReader, SolanaTransaction } from '../providers/chains/solana/solana-rpc.js';
import { transfersIn } from '../providers/chains/solana/transfers.js';
import * as watch from '../store/chain-watch.js';
import type { Database } from '../store/database.js';
import { freeOwners } from '../store/solana-owners.js';
import { claimSignatureCursors, moveSignatureCursors, signatureCursors, watchedSolanaAddresses } from '../store/solana-watch.js';
import type { CreditPrices } from '../use-cases/deposits.js';
import { ChainCredits, recordChainDeposits, tenantOfRow, type SeenChainDeposit } from './chain-deposits.js';

export interface SolanaWatcherOptions {
  network: string;
  /** Hours after its intent expired that an address is still read. */
  watchHoursAfterExpiry: number;
  /** Below this many unallocated owner keys, the pool is reported low. */
  poolLowThreshold: number;
}

/** Larger than any slot: every recorded deposit is finalized, so every pending one is due. */
const ANY_SLOT = 2n ** 62n;

const tokenAccountOf = async (owner: string, mint: string) =>
  (await findAssociatedTokenPda({ owner: toAddress(owner), mint: toAddress(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

/**
 * Follows one Solana network for deposits to live addresses. Solana has no cheap "transfers to these accounts
 * in these blocks" query (blocks are megabytes), so each tick asks, for each address that can still be paid,
 * for the signatures of its owner and of its token account newer than the last one read (getSignaturesForAddress,
 * at `finalized`: the chain's own 32 confirmations, never rolled back), reads each new transaction, and records
 * the transfers to it in the asset it was minted for as pending deposits, moving those cursors in the same
 * database transaction. A tick that fails or dies before then records nothing, and the next one reads the same
 * signatures again; a transfer's identity is (signature, instruction index), recorded once. Then every pending
 * deposit is credited through the one credit use case.
 */
export class SolanaWatcher {
  private readonly credits: ChainCredits;
  /** The free count last warned about: the warning comes again only when the pool changed. */
  private warnedAt: number | null = null;

  constructor(
    private readonly db: Database,
    private readonly chain: SolanaChainReader,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    creditPrices: () => Promise<CreditPrices>,
    private readonly options: SolanaWatcherOptions,
    private readonly log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
    metrics: Pick<Metrics, 'credited' | 'creditFailed'>,
  ) {
    this.credits = new ChainCredits(db, clock, creditPrices, log, metrics);
  }

  get network(): string {
    return this.options.network;
  }

  /** One pass; answers how many deposits it credited. */
  async tick(): Promise<number> {
    const { network, watchHoursAfterExpiry } = this.options;
    await this.checkPool();
    const expiredSince = new Date(this.clock.now().getTime() - watchHoursAfterExpiry * 3_600_000);
    for (const address of await watchedSolanaAddresses(this.db, network, expiredSince)) await this.follow(address);
    // Finalized deposits need no confirmations counted and no cursor re-checked: nothing can take them back.
    const due = await watch.dueChainDeposits(this.db, network, ANY_SLOT, this.clock.now());
    return this.credits.creditDue(network, due, async () => true);
  }

  /** The operator must import keys before the pool runs dry: an empty pool refuses new live addresses. */
  private async checkPool(): Promise<void> {
    const { network, poolLowThreshold } = this.options;
    const free = (await freeOwners(this.db)).get(network) ?? 0;
    if (free >= poolLowThreshold || free === this.warnedAt) return;
    this.warnedAt = free;
    this.log.warn(
      { network, free, threshold: poolLowThreshold },
      'solana owner pool low: import more owner keys (connect-payments solana import-owners, docs/live-solana.md); at 0 new live addresses are refused',
    );
  }

  /** Catalog token mints on this network → asset code. */
  private mints(): Map<string, string> {
    const mints = new Map<string, string>();
    for (const asset of this.catalog.data.assets) {
      const mint = asset.networks.find((n) => n.network === this.options.network)?.token_contract;
      if (mint) mints.set(mint, asset.code);
    }
    return mints;
  }

  /** Reads what is new for one address and records its deposits. */
  private async follow(address: watch.WatchedAddress): Promise<void> {
    const { network } = this.options;
    const owner = address.address;
    // Token accounts of the owner for each catalog mint: the one of its asset is credited, the others only logged.
    const tokenAccounts = new Map<string, string>();
    for (const [mint, asset] of this.mints()) tokenAccounts.set(await tokenAccountOf(owner, mint), asset);
    const own = [...tokenAccounts].find(([, asset]) => asset === address.asset)?.[0];
    const accounts = own ? [owner, own] : [owner];

    const cursors = await signatureCursors(this.db, network, accounts);
    const newest = new Map<string, string>();
    const signatures = new Set<string>();
    for (const account of accounts) {
      const found = await this.chain.signaturesSince(account, cursors.get(account) ?? null);
      if (found.length > 0) newest.set(account, found[0]!.signature);
      // Oldest first; a failed transaction moved nothing, so it is not even read.
      for (const entry of found.reverse()) if (!entry.failed) signatures.add(entry.signature);
    }
    if (newest.size === 0) return;

    const deposits: SeenChainDeposit[] = [];
    for (const signature of signatures) {
      const transaction = await this.chain.transaction(signature);
      if (!transaction) throw new Error(`${network}: the node listed ${signature} as finalized but does not return it; it is read again at the next tick`);
      if (!transaction.failed) deposits.push(...this.ours(signature, transaction, address, tokenAccounts));
    }
    await this.db.transaction(async (tx) => {
      // Another watcher read these accounts further first, and recorded what it read.
      if (!(await claimSignatureCursors(tx, network, cursors, accounts))) return;
      await recordChainDeposits(tx, this.clock, network, deposits);
      await moveSignatureCursors(tx, network, newest);
    });
  }

  /** The transfers of one transaction that pay `address` in the asset it was minted for. */
  private ours(signature: string, transaction: SolanaTransaction, address: watch.WatchedAddress, tokenAccounts: ReadonlyMap<string, string>): SeenChainDeposit[] {
    const { network } = this.options;
    const native = this.catalog.network(network)!.native_asset;
    const deposits: SeenChainDeposit[] = [];
    for (const transfer of transfersIn(transaction.instructions)) {
      const asset = transfer.mint === null ? (transfer.destination === address.address ? native : undefined) : tokenAccounts.get(transfer.destination);
      if (asset === undefined || transfer.amount === 0n) continue;
      if (asset !== address.asset) {
        this.log.warn(
          { network, signature, instructionIndex: transfer.instructionIndex, to: address.address, asset },
          'chain watcher: a transfer in another asset than the address was minted for is not credited; recover it with the offline key',
        );
        continue;
      }
      const decimals = this.catalog.pair(asset, network)!.decimals;
      deposits.push({
        addressId: address.id,
        tenant: tenantOfRow(address),
        amount: new Decimal(transfer.amount.toString()).div(new Decimal(10).pow(decimals)),
        txHash: signature,
        outputIndex: transfer.instructionIndex,
        from: transfer.from,
        blockNumber: transaction.slot,
        blockHash: '',
      });
    }
    return deposits;
  }
}
