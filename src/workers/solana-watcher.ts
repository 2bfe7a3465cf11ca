import { address as toAddress } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import type { FastifyBaseLogger } from 'fastify';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { Decimal } from '../domain/money.js';
import type { Metrics } from '../metrics/metrics.js';
import { SIGNATURES_PAGE, type SolanaChainReader, type SolanaSignatureInfo, type SolanaTransaction } from '../providers/chains/solana/solana-rpc.js';
import { transfersIn } from '../providers/chains/solana/transfers.js';
import * as watch from '../store/chain-watch.js';
import type { Database } from '../store/database.js';
import { freeOwners } from '../store/solana-owners.js';
import { claimSignatureCursors, dueSolanaAddresses, markSolanaReads, moveSignatureCursors, signatureCursors, type SignatureCursor } from '../store/solana-watch.js';
import type { CreditPrices } from '../use-cases/deposits.js';
import { ChainCredits, recordChainDeposits, tenantOfRow, type SeenChainDeposit } from './chain-deposits.js';

export interface SolanaWatcherOptions {
  network: string;
  /** Hours after its intent expired that an address is still read. */
  watchHoursAfterExpiry: number;
  /** Below this many unallocated owner keys, the pool is reported low. */
  poolLowThreshold: number;
  /** RPC calls one tick makes at most (CONNECT_SOLANA_MAX_CALLS): what keeps the watcher within a provider's rate limit. */
  maxCallsPerTick: number;
  /** Hours without a new signature after which a standalone address is idle (CONNECT_SOLANA_IDLE_HOURS)… */
  idleHours: number;
  /** …and read only this often (CONNECT_SOLANA_IDLE_POLL_SECONDS). */
  idlePollSeconds: number;
}

/** What one address's reading found: the transactions read, oldest first, and how far each account's cursor may move. */
interface Reading {
  /** The cursors as they were before the listing: recorded only if still so. */
  cursors: Map<string, SignatureCursor>;
  transactions: Map<string, SolanaTransaction>;
  newest: Map<string, { signature: string; slot: bigint }>;
}

/** The calls a tick may still make. */
class CallBudget {
  constructor(public left: number) {}
  spend(calls: number): void {
    this.left -= calls;
  }
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
 * deposit is credited through the one credit use case. A tick makes at most `maxCallsPerTick` calls, reading the
 * addresses least recently read first (docs/live-solana.md, "What the watcher costs").
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
    private readonly metrics: Pick<Metrics, 'credited' | 'creditFailed' | 'solanaBudgetHit'>,
  ) {
    this.credits = new ChainCredits(db, clock, creditPrices, log, metrics);
  }

  get network(): string {
    return this.options.network;
  }

  /**
   * One pass; answers how many deposits it credited. Reads the due addresses, least recently read first, until
   * the call budget is spent: the rest are first in line at the next tick. An address whose reading fails (a
   * node that does not return a listed transaction, or is behind its cursor) is logged and holds back only its
   * own cursors.
   */
  async tick(): Promise<number> {
    const { network, watchHoursAfterExpiry, maxCallsPerTick, idleHours, idlePollSeconds } = this.options;
    await this.checkPool();
    const now = this.clock.now();
    const due = await dueSolanaAddresses(this.db, network, {
      expiredSince: new Date(now.getTime() - watchHoursAfterExpiry * 3_600_000),
      idleSince: new Date(now.getTime() - idleHours * 3_600_000),
      idleReadBefore: new Date(now.getTime() - idlePollSeconds * 1000),
      limit: maxCallsPerTick,
    });
    const budget = new CallBudget(maxCallsPerTick);
    const read: string[] = [];
    const active = new Set<string>();
    for (const address of due) {
      const accounts = await this.accountsOf(address);
      // Every account of an address is listed at least once: one that cannot be is left whole for the next tick.
      if (budget.left < accounts.length) {
        this.log.warn({ network, maxCallsPerTick, waiting: due.length - read.length }, 'solana watcher: the tick spent its call budget (CONNECT_SOLANA_MAX_CALLS); the addresses left are read first at the next tick');
        this.metrics.solanaBudgetHit(network);
        break;
      }
      read.push(address.id);
      let reading: Reading;
      try {
        reading = await this.read(address, accounts, budget);
      } catch (error) {
        this.log.warn({ network, address: address.address, error: error instanceof Error ? error.message : String(error) }, 'solana watcher: this address could not be read; it is read again at a later tick, the others go on');
        continue;
      }
      if (reading.newest.size > 0) active.add(address.id);
      await this.record(address, accounts, reading);
    }
    await markSolanaReads(this.db, read, active, now);
    // Finalized deposits need no confirmations counted and no cursor re-checked: nothing can take them back.
    const credits = await watch.dueChainDeposits(this.db, network, ANY_SLOT, this.clock.now());
    return this.credits.creditDue(network, credits, async () => true);
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

  /** The accounts read for `address`: its owner, and the owner's token account of the address's asset. */
  private async accountsOf(address: watch.WatchedAddress): Promise<string[]> {
    const mint = [...this.mints()].find(([, asset]) => asset === address.asset)?.[0];
    return mint ? [address.address, await tokenAccountOf(address.address, mint)] : [address.address];
  }

  /**
   * Lists what is new on each account of `address` (one call a page of signatures) and reads the new transactions
   * oldest first (one call each) while the budget lasts. An account's cursor may move past a signature only once
   * its transaction was read (or failed, which moved nothing): one the node does not return, or the budget's end,
   * stops that account there, and the next tick lists the rest again.
   */
  private async read(address: watch.WatchedAddress, accounts: readonly string[], budget: CallBudget): Promise<Reading> {
    const { network } = this.options;
    const cursors = await signatureCursors(this.db, network, accounts);
    const listed = new Map<string, SolanaSignatureInfo[]>();
    for (const account of accounts) {
      const found = await this.chain.signaturesSince(account, cursors.get(account) ?? null);
      budget.spend(Math.floor(found.length / SIGNATURES_PAGE) + 1);
      listed.set(account, found.reverse());
    }
    const reading: Reading = { cursors, transactions: new Map(), newest: new Map() };
    const missing: string[] = [];
    for (const [account, oldestFirst] of listed) {
      for (const entry of oldestFirst) {
        if (!entry.failed && !reading.transactions.has(entry.signature)) {
          if (budget.left <= 0 || missing.includes(entry.signature)) break;
          budget.spend(1);
          const transaction = await this.chain.transaction(entry.signature);
          if (!transaction) {
            missing.push(entry.signature);
            break;
          }
          reading.transactions.set(entry.signature, transaction);
        }
        reading.newest.set(account, { signature: entry.signature, slot: entry.slot });
      }
    }
    if (missing.length > 0) {
      this.log.warn({ network, address: address.address, signatures: missing }, 'solana watcher: the node listed these signatures as finalized but does not return them; what follows them on this address is read again at the next tick');
    }
    return reading;
  }

  /** Records the deposits read for `address` and moves its cursors, unless another watcher moved them first. */
  private async record(address: watch.WatchedAddress, accounts: readonly string[], reading: Reading): Promise<void> {
    const { network } = this.options;
    if (reading.newest.size === 0) return;
    const tokenAccounts = await this.tokenAccountsOf(address.address);
    const deposits: SeenChainDeposit[] = [];
    for (const [signature, transaction] of reading.transactions) {
      if (!transaction.failed) deposits.push(...this.ours(signature, transaction, address, tokenAccounts));
    }
    await this.db.transaction(async (tx) => {
      // Another watcher read these accounts further first, and recorded what it read.
      if (!(await claimSignatureCursors(tx, network, reading.cursors, accounts))) return;
      await recordChainDeposits(tx, this.clock, network, deposits);
      await moveSignatureCursors(tx, network, reading.newest);
    });
  }

  /** The owner's token account for each catalog mint → its asset: the one of the address's asset is credited, the others only logged. */
  private async tokenAccountsOf(owner: string): Promise<Map<string, string>> {
    const tokenAccounts = new Map<string, string>();
    for (const [mint, asset] of this.mints()) tokenAccounts.set(await tokenAccountOf(owner, mint), asset);
    return tokenAccounts;
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
